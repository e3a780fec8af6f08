// Slow: every mutated program goes through the whole analysis, and an accepted one is run too.
// Fuzz the analyzer with mutated programs: the shipped examples and the soundness generator's
// programs, edited with TypeScript's tokens and the constructs it refuses. Each ends as facts
// (refused with diagnostics, or accepted), never a throw or a hang; an accepted one must still
// cover every concrete run (the soundness oracle).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { createAnalyzer } from "../../src/analyze/create-analyzer.js";
import { packageRoot } from "../../src/model/paths.js";
import { generateProgram, programChoices } from "../analyze/soundness/generate-program.js";
import { violations } from "../analyze/soundness/violations.js";
import { compileProgram } from "../analyze/support/concrete-runner.js";
import { testManifests } from "../analyze/support/test-manifests.js";
import { applyEdits, fuzzParameters, fuzzTimeout, textEdit } from "./fuzz.js";

const set = testManifests();
// The shipped budget: a mutation can make TypeScript's checker take minutes (nested overloaded
// calls), and the answer then is a budget refusal, which this property accepts.
const analyzer = createAnalyzer(set);
afterAll(() => analyzer.dispose());

const examples = readdirSync(join(packageRoot, "examples"))
  .filter((f) => f.endsWith(".ts"))
  .map((f) => readFileSync(join(packageRoot, "examples", f), "utf8"));

const TS_PIECES = [
  "{",
  "}",
  "(",
  ")",
  "[",
  "]",
  ";",
  ",",
  ".",
  "?.",
  "...",
  "=>",
  "=",
  "+",
  "`",
  "${",
  "'",
  '"',
  "/*",
  "*/",
  "//",
  "\n",
  "await ",
  "async ",
  "return ",
  "for (;;) {}",
  "while (true) {}",
  "for (const x of [1, 2]) ",
  "if (Math.random()) ",
  "try {} finally {",
  "label: ",
  "eval(",
  "Function(",
  "globalThis",
  "process",
  "__proto__",
  "constructor",
  ".prototype.x = 1",
  "new Proxy({}, {})",
  "Reflect.",
  "import(",
  "require(",
  " as unknown as ",
  " as any",
  "// @ts-ignore\n",
  "// @ts-nocheck\n",
  "declare module 'trusted/fs' {}",
  "get x() { return 1 }, ",
  "sendEmail",
  "readFile",
  "writeFile",
  "get",
  "post",
  "const f = sendEmail;",
  "[sendEmail][0](",
  "sendEmail.call(",
  "{ ...sendEmail }",
  "type T<X> = X extends [] ? T<[X]> : X;",
  "'\\u0061'",
  "\u2028",
  "\ud800",
  "🙂",
  "0n",
  "1e309",
  "-0",
  "NaN",
  "Symbol()",
  "x".repeat(2000),
];
const edits = fc.array(textEdit(TS_PIECES), { minLength: 1, maxLength: 4 });
const reads = fc.array(fc.constantFrom("", "a@x.com", "hello, world", "https://evil.com/"), {
  minLength: 1,
  maxLength: 3,
});

function analyzedSoundly(source: string, texts: string[]): void {
  const facts = analyzer.analyze(source);
  expect(facts.ok).toBe(facts.diagnostics.length === 0 && facts.guarantees.every((g) => g.status !== "refuted"));
  for (const d of facts.diagnostics) expect(d.line).toBeGreaterThanOrEqual(1);
  if (facts.diagnostics.length > 0) return;
  // the oracle over these facts (analyzing again could hit the wall-clock budget on a busy machine)
  const trace = compileProgram(source, set).run({ readText: (_op, n) => texts[n % texts.length]! });
  expect(violations(facts, [trace], set), source).toEqual([]);
}

describe("fuzz: the analyzer on mutated programs", () => {
  it(
    "a mutated example is refused or analyzed soundly",
    () => {
      fc.assert(
        fc.property(fc.integer({ min: 0, max: examples.length - 1 }), edits, reads, (i, e, texts) =>
          analyzedSoundly(applyEdits(examples[i]!, e), texts),
        ),
        fuzzParameters(200),
      );
    },
    fuzzTimeout(240_000),
  );

  it(
    "a mutated generated program is refused or analyzed soundly",
    () => {
      fc.assert(
        fc.property(programChoices, edits, reads, (choices, e, texts) =>
          analyzedSoundly(applyEdits(generateProgram(choices), e), texts),
        ),
        fuzzParameters(150),
      );
    },
    fuzzTimeout(240_000),
  );
});
