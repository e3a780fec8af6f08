import { parse, TomlError } from "smol-toml";
import { indexKeyLines, MAX_TOML_DEPTH, type KeyLines } from "./toml-lines.js";

/** Why a TOML text could not be read, and where when known. */
export interface TomlProblem {
  line?: number;
  message: string;
}

export type ParsedToml =
  | { value: Record<string, unknown>; lines: KeyLines; problem?: undefined }
  | { problem: TomlProblem; lines: KeyLines };

/**
 * Parse the TOML of a countersign file (manifest, policy, connections, policy test) with the
 * line of every key. Nesting deeper than MAX_TOML_DEPTH is refused at its line before the parser
 * (which recurses) sees it; no input makes this throw.
 */
export function parseToml(text: string): ParsedToml {
  const { lines, tooDeep } = indexKeyLines(text);
  if (tooDeep !== null)
    return { lines, problem: { line: tooDeep, message: `nested more than ${MAX_TOML_DEPTH} levels deep` } };
  try {
    return { lines, value: parse(text) };
  } catch (err) {
    if (err instanceof TomlError) {
      const reason = err.message.split("\n")[0]?.replace(/^Invalid TOML document: /, "") || "syntax error";
      return { lines, problem: { line: err.line, message: `invalid TOML: ${reason}` } };
    }
    // A limit of the parser itself (its stack) that the scan did not foresee: still this text's fault.
    return { lines, problem: { message: `invalid TOML: ${err instanceof Error ? err.message : String(err)}` } };
  }
}
