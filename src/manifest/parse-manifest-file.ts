import { readFileSync } from "node:fs";
import { parse, TomlError } from "smol-toml";
import type { z } from "zod";
import type { ManifestError } from "./manifest-error.js";
import { fieldError, type ManifestFile } from "./manifest-file.js";
import { indexKeyLines } from "./toml-lines.js";

export interface ParsedManifest<T> {
  file: ManifestFile;
  data?: T; // absent when the file has errors
  errors: ManifestError[];
}

/** Read one TOML file and check it against its schema; every problem becomes an error, none throws. */
export function parseManifestFile<S extends z.ZodType>(path: string, rel: string, schema: S): ParsedManifest<z.output<S>> {
  let source: string;
  try {
    source = readFileSync(path, "utf8");
  } catch (err) {
    const file: ManifestFile = { rel, path, lines: new Map() };
    return { file, errors: [{ file: rel, field: "", message: `cannot read: ${(err as Error).message}` }] };
  }
  const file: ManifestFile = { rel, path, lines: indexKeyLines(source) };
  let value: unknown;
  try {
    value = parse(source);
  } catch (err) {
    if (!(err instanceof TomlError)) throw err;
    const reason = err.message.split("\n")[0]?.replace(/^Invalid TOML document: /, "") ?? "syntax error";
    return { file, errors: [{ file: rel, field: "", line: err.line, message: `invalid TOML: ${reason}` }] };
  }
  const result = schema.safeParse(value, { error: describeIssue });
  if (result.success) return { file, data: result.data, errors: [] };
  const errors = result.error.issues.flatMap((issue) => {
    const path = issue.path.map((segment) => (typeof segment === "number" ? segment : String(segment)));
    if (issue.code === "unrecognized_keys") return issue.keys.map((key) => fieldError(file, [...path, key], "unknown key"));
    return [fieldError(file, path, issue.message)];
  });
  return { file, errors };
}

/** Messages for the issues zod words for programmers ("Invalid input: expected string, received undefined"). */
function describeIssue(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code === "invalid_type") {
    if (issue.input === undefined) return "is required";
    return `must be ${withArticle(issue.expected)}, not ${describeValue(issue.input)}`;
  }
  if (issue.code === "invalid_value") return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
  return undefined;
}

function withArticle(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function describeValue(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  if (typeof value === "object") return value instanceof Date ? "a date" : "a table";
  return JSON.stringify(value);
}
