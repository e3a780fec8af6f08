import fc from "fast-check";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkManifests } from "../../src/config/index.js";
import { copyWithFakeWasm } from "./fixture.js";

const base = copyWithFakeWasm();
const files = readdirSync(base).flatMap((c) => readdirSync(join(base, c)).map((f) => `${c}/${f}`));
const original = new Map(files.map((f) => [f, readFileSync(join(base, f), "utf8")]));

/** One random edit to one line of one file: delete it, duplicate it, or overwrite one character. */
const mutation = fc.record({
  file: fc.constantFrom(...files),
  at: fc.nat(),
  kind: fc.constantFrom("delete", "duplicate", "char"),
  char: fc.constantFrom("=", "[", "]", "{", "}", '"', "'", "#", "$", ".", "\n", " ", "x", "0"),
});

function mutate(text: string, m: { at: number; kind: string; char: string }): string {
  const lines = text.split("\n");
  const i = m.at % lines.length;
  const line = lines[i] ?? "";
  if (m.kind === "delete") lines.splice(i, 1);
  else if (m.kind === "duplicate") lines.splice(i, 0, line);
  else {
    const j = line.length === 0 ? 0 : m.at % line.length;
    lines[i] = line.slice(0, j) + m.char + line.slice(j + 1);
  }
  return lines.join("\n");
}

describe("checkManifests on damaged files", () => {
  it("never throws, and every error names a file of the set and a line inside it", () => {
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 3 }), (mutations) => {
        for (const [file, text] of original) writeFileSync(join(base, file), text);
        for (const m of mutations) {
          const path = join(base, m.file);
          writeFileSync(path, mutate(readFileSync(path, "utf8"), m));
        }
        const { set, errors } = checkManifests(base);
        expect(set === undefined).toBe(errors.length > 0);
        for (const error of errors) {
          expect(files).toContain(error.file);
          if (error.line !== undefined) {
            const lineCount = readFileSync(join(base, error.file), "utf8").split("\n").length;
            expect(error.line).toBeGreaterThanOrEqual(1);
            expect(error.line).toBeLessThanOrEqual(lineCount);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
