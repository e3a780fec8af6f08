/** One problem found in a manifest directory. `file` is relative to the directory, `field` a dotted path. */
export interface ManifestError {
  file: string;
  field: string;
  line?: number;
  message: string;
}

/** `email/send_draft.toml:23 approval.preview.op: "get_drafts" is not an action of connector email` */
export function formatManifestError(error: ManifestError, file: string = error.file): string {
  const where = error.line === undefined ? file : `${file}:${error.line}`;
  return error.field === "" ? `${where}: ${error.message}` : `${where} ${error.field}: ${error.message}`;
}

/** Stable order for reports: by file, then by line (errors without a line last). */
export function compareManifestErrors(a: ManifestError, b: ManifestError): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  return (a.line ?? Number.MAX_SAFE_INTEGER) - (b.line ?? Number.MAX_SAFE_INTEGER);
}
