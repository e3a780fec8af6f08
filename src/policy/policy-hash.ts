import { createHash } from "node:crypto";
import { basename } from "node:path";
import type { PolicyFile } from "./schema.js";

/**
 * The policy's identity in receipts: sha256 over the canonical JSON (keys sorted, no spaces) of
 * `[[fileName, content], ...]` sorted by file name, where content is each file's validated
 * content with `~` already expanded. Comments, whitespace and key order do not change it; a
 * renamed file, another home directory or any rule change does.
 */
export function policyHash(files: { file: string; content: PolicyFile }[]): string {
  const entries = files.map(({ file, content }) => [basename(file), content] as const);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash("sha256").update(canonicalJson(entries)).digest("hex");
}

/** JSON with object keys sorted at every level; undefined fields are dropped like JSON.stringify does. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const keys = Object.keys(value).filter((k) => (value as Record<string, unknown>)[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
