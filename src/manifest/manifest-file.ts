import type { ManifestError } from "./manifest-error.js";
import { formatField, lineOf, type FieldPath, type KeyLines } from "../model/index.js";

/** One TOML file of a manifest directory, with what is needed to point an error at its line. */
export interface ManifestFile {
  rel: string; // relative to the manifest directory, with "/" separators
  path: string; // absolute
  lines: KeyLines;
}

export function fieldError(file: ManifestFile, path: FieldPath, message: string): ManifestError {
  const line = lineOf(file.lines, path);
  return { file: file.rel, field: formatField(path), ...(line === undefined ? {} : { line }), message };
}
