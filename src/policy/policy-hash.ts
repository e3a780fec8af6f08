import { createHash } from "node:crypto";
import { basename } from "node:path";
import { canonicalJson } from "../constraint/index.js";
import type { Json } from "../model/index.js";
import type { PolicyFile } from "./schema.js";

/**
 * The policy's identity in receipts: sha256 over the canonical JSON (keys sorted, no spaces) of
 * `[[fileName, content], ...]` sorted by file name, where content is each file's validated
 * content with `~` and `own_address` already resolved. Comments, whitespace and key order do not
 * change it; a renamed file, another home directory, another own address or any rule change does.
 */
export function policyHash(files: { file: string; content: PolicyFile }[]): string {
  const entries = files.map(({ file, content }) => [basename(file), content] as const);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  // Through JSON first: optional fields left undefined by the schema are dropped, as in the file.
  return createHash("sha256")
    .update(canonicalJson(JSON.parse(JSON.stringify(entries)) as Json))
    .digest("hex");
}
