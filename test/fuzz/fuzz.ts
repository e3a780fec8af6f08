// Shared pieces of the fuzz suites: how many cases a property runs, and text mutations.
import fc from "fast-check";

const SCALE = ((n) => (Number.isFinite(n) && n > 0 ? n : 1))(Number(process.env.FUZZ_SCALE ?? 1));

/** A fuzz test's time limit, grown with FUZZ_SCALE. */
export const fuzzTimeout = (ms: number): number => Math.round(ms * Math.max(1, SCALE));

/**
 * The run parameters of one fuzz property: `runs` cases per CI run, times FUZZ_SCALE for a longer
 * local run; FUZZ_SEED (and FUZZ_PATH) replay the case a failure printed. fast-check prints the
 * seed and the path of every counterexample it finds.
 */
export function fuzzParameters<T>(runs: number): fc.Parameters<T> {
  const seed = process.env.FUZZ_SEED;
  return {
    numRuns: Math.max(1, Math.round(runs * SCALE)),
    ...(seed === undefined
      ? {}
      : { seed: Number(seed), ...(process.env.FUZZ_PATH === undefined ? {} : { path: process.env.FUZZ_PATH }) }),
  };
}

/** One edit of a text: delete a span, insert a piece, duplicate or drop a line, or swap two lines. */
export type TextEdit =
  | { kind: "insert"; at: number; piece: string }
  | { kind: "delete"; at: number; length: number }
  | { kind: "duplicate_line" | "drop_line"; at: number }
  | { kind: "swap_lines"; at: number; with: number };

/** Edits that insert pieces drawn from `pieces` (a grammar's tokens) or arbitrary characters. */
export function textEdit(pieces: readonly string[]): fc.Arbitrary<TextEdit> {
  const piece = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...pieces) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 8 }) },
  );
  return fc.oneof(
    fc.record({ kind: fc.constant("insert" as const), at: fc.nat(), piece }),
    fc.record({ kind: fc.constant("delete" as const), at: fc.nat(), length: fc.integer({ min: 1, max: 40 }) }),
    fc.record({ kind: fc.constantFrom("duplicate_line" as const, "drop_line" as const), at: fc.nat() }),
    fc.record({ kind: fc.constant("swap_lines" as const), at: fc.nat(), with: fc.nat() }),
  );
}

export function applyEdit(text: string, edit: TextEdit): string {
  const at = text.length === 0 ? 0 : edit.at % (text.length + 1);
  switch (edit.kind) {
    case "insert":
      return text.slice(0, at) + edit.piece + text.slice(at);
    case "delete":
      return text.slice(0, at) + text.slice(at + edit.length);
    default: {
      const lines = text.split("\n");
      const i = edit.at % lines.length;
      if (edit.kind === "duplicate_line") lines.splice(i, 0, lines[i]!);
      else if (edit.kind === "drop_line") lines.splice(i, 1);
      else if (edit.kind === "swap_lines") {
        const j = edit.with % lines.length;
        [lines[i], lines[j]] = [lines[j]!, lines[i]!];
      }
      return lines.join("\n");
    }
  }
}

export const applyEdits = (text: string, edits: readonly TextEdit[]): string => edits.reduce(applyEdit, text);

/** TOML's tokens, and values that have broken parsers: deep nesting, huge numbers, odd strings. */
export const TOML_PIECES = [
  "=",
  "[",
  "]",
  "[[",
  "]]",
  "{",
  "}",
  ",",
  '"',
  "'",
  '"""',
  "'''",
  "#",
  ".",
  "\n",
  " ",
  "\\",
  "\\u0000",
  "\\U0010FFFF",
  "true",
  "false",
  "nan",
  "inf",
  "-inf",
  "0x7f",
  "1e309",
  "99999999999999999999",
  "-0",
  "1979-05-27T07:32:00Z",
  "[".repeat(200),
  "{ a = ".repeat(60),
  '"' + "x".repeat(5000) + '"',
  "\u202e",
  "\u0000",
  "\ud800",
  "🙂",
  "args",
  "op",
  "id",
  "decision",
  "when",
  "name",
  "version",
  "inputs",
  "execute",
  "approval",
  "preview",
  "render",
  '"${args.to}"',
  '"${step.x}"',
  '"${args."',
  "count",
  "max",
  "under",
  "glob",
  "host_in",
  "not",
  "all",
  "any",
];

/** Did the edit keep what the MAC covers (the payload text) and the MAC's bytes, as a lenient base64url decoder reads them? */
export function sameSigned(original: string, edited: string): boolean {
  const [p, s, ...rest] = edited.split(".");
  const [op, os] = original.split(".");
  return (
    rest.length === 0 &&
    p === op &&
    s !== undefined &&
    Buffer.from(s, "base64url").equals(Buffer.from(os!, "base64url"))
  );
}
