import { createHash } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAnalyzer } from "../../../src/analyze/create-analyzer.js";
import { main } from "../../../src/cli/main.js";
import type { Io } from "../../../src/cli/command.js";
import { CountersignError } from "../../../src/model/errors.js";
import { testManifests } from "../support/test-manifests.js";
import { located, prog } from "./program.js";
import { STEP_BUDGET } from "../support/step-budget.js";

const analyzer = createAnalyzer(testManifests(), { budget: STEP_BUDGET });
afterAll(() => analyzer.dispose());

/** Cases the analyzer still gets wrong, by name: they run as expected failures until fixed. */
const OPEN = new Set<string>([]);

/** Refused with a diagnostic, or a CountersignError: never a raw RangeError from deep recursion. */
function refusesCleanly(source: string): void {
  let facts: ReturnType<typeof analyzer.analyze> | undefined;
  try {
    facts = analyzer.analyze(source);
  } catch (err) {
    expect(err, String(err)).toBeInstanceOf(CountersignError);
    return;
  }
  if (!facts.ok) expect(facts.diagnostics.length).toBeGreaterThan(0);
}

const deep: [string, string][] = [
  ["3000 nested parentheses", `const x = ${"(".repeat(3000)}1${")".repeat(3000)};`],
  ["3000 nested array literals", `const x = ${"[".repeat(3000)}${"]".repeat(3000)};`],
  ["3000 nested ifs", `${"if (true) { ".repeat(3000)}${"}".repeat(3000)}`],
  ["3000 nested arrows", `const f = ${"() => ".repeat(3000)}1;`],
  ["600 nested calls", `await ${"Promise.resolve(".repeat(600)}1${")".repeat(600)};`],
  ["a sum of 3000 terms", `const x = ${Array(3000).fill("1").join(" + ")};`],
  // Unrolling computes the constant exactly: 2^41 characters, past the engine's string limit.
  // Each unrolled iteration nests the value one level deeper: 36000 levels, past the analyzer's own stack.
  [
    "a value nested 36000 deep by unrolled loops",
    `let xs: unknown[] = [String((await getDraft({ id: "1" })).body)];\n    for (let i = 0; i < 60; i++) for (let j = 0; j < 60; j++) for (let k = 0; k < 10; k++) xs = [xs];\n    await sendEmail({ to: [String(xs.length)], subject: "s", body: "b" });`,
  ],
  [
    "a string doubled 40 times in a loop",
    `let s: string = "ab";\n    for (let i = 0; i < 40; i++) {\n      s = s + s;\n    }\n    await sendEmail({ to: ["a@x.com"], subject: s, body: "b" });`,
  ],
];

describe("programs too large or too deep", () => {
  for (const [name, body] of deep)
    (OPEN.has(name) ? it.fails : it)(`${name}: a clear refusal, not a stack overflow`, () =>
      refusesCleanly(prog(body)),
    );

  it("20000 flat statements are analyzed, and a refusal at the end has the right line", () => {
    // In functions of 100 statements: one function of 20000 is refused as too large (see budget.test.ts).
    const helpers = Array.from(
      { length: 200 },
      (_, k) =>
        `function f${k}(): number {\n${Array.from({ length: 100 }, (_, i) => `  const v${i} = ${k * 100 + i};`).join("\n")}\n  return v0;\n}\n`,
    ).join("");
    const { source, line, column } = located(prog(`const last = ⟦eval("1");`, { top: helpers }));
    expect(line).toBe(20611);
    // Past the default size cap (some 400 KB): this analysis is given room for it.
    expect(analyzer.analyze(source, { budget: { bytes: 1 << 20 } }).diagnostics).toContainEqual(
      expect.objectContaining({ code: "refused_construct", construct: "eval", line, column }),
    );
  });
});

function capture(): Io & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    readStdin: async () => "",
    env: {},
    cwd: process.cwd(),
  };
}

describe("bytes on disk", () => {
  const dir = mkdtempSync(join(tmpdir(), "countersign-hostile-"));

  // Invalid UTF-8 decodes to U+FFFD: the analysis would then be about other text than the bytes
  // whose hash a receipt binds. Refuse it, or at least hash the bytes themselves.
  (OPEN.has("a file that is not UTF-8") ? it.fails : it)("a file that is not UTF-8", async () => {
    const bytes = Buffer.concat([
      Buffer.from(prog(`const to = "b@x.com`)),
      Buffer.from([0xff, 0xfe]),
      Buffer.from(`";`),
    ]);
    const file = join(dir, "latin1.ts");
    writeFileSync(file, bytes);
    const io = capture();
    const code = await main(["check", file, "--json"], io);
    if (code === 0) {
      const facts = JSON.parse(io.out.join("")) as { program: { sha256: string } };
      expect(facts.program.sha256).toBe(createHash("sha256").update(bytes).digest("hex"));
    } else expect(io.out.join("") + io.err.join("")).toMatch(/UTF-8/i);
  });

  it("a BOM and CRLF file: lines as an editor shows them", async () => {
    const file = join(dir, "crlf.ts");
    const { source, line, column } = located(
      `\uFEFF${prog(`const a = 1;\n    const b = ⟦eval("a");`)}`.replace(/\n/g, "\r\n"),
    );
    writeFileSync(file, source);
    const io = capture();
    expect(await main(["check", file, "--json"], io)).toBe(1);
    const facts = JSON.parse(io.out.join("")) as {
      diagnostics: { construct?: string; line: number; column: number }[];
    };
    expect(facts.diagnostics).toContainEqual(expect.objectContaining({ construct: "eval", line, column }));
  });
});
