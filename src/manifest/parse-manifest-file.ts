import type { z } from "zod";
import { parseToml } from "../model/index.js";
import type { ManifestError } from "./manifest-error.js";
import { fieldError, type ManifestFile } from "./manifest-file.js";
import type { ManifestSource } from "./manifest-tree.js";

export interface ParsedManifest<T> {
  file: ManifestFile;
  data?: T; // absent when the file has errors
  errors: ManifestError[];
}

/** Check one TOML file against its schema; every problem becomes an error, none throws. */
export function parseManifestFile<S extends z.ZodType>(source: ManifestSource, schema: S): ParsedManifest<z.output<S>> {
  const { rel, path } = source;
  if ("problem" in source)
    return { file: { rel, path, lines: new Map() }, errors: [{ file: rel, field: "", message: source.problem }] };
  const parsed = parseToml(source.text);
  const file: ManifestFile = { rel, path, lines: parsed.lines };
  if (parsed.problem !== undefined) {
    const { line, message } = parsed.problem;
    return { file, errors: [{ file: rel, field: "", ...(line === undefined ? {} : { line }), message }] };
  }
  const result = schema.safeParse(parsed.value, { error: describeIssue });
  if (result.success) return { file, data: result.data, errors: [] };
  const errors = result.error.issues.flatMap((issue) => {
    const path = issue.path.map((segment) => (typeof segment === "number" ? segment : String(segment)));
    if (issue.code === "unrecognized_keys")
      return issue.keys.map((key) => fieldError(file, [...path, key], "unknown key"));
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
