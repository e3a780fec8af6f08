// Most programs are type-checked by one long-lived checker (compile.ts). Nothing of one program may
// reach another through it: each program's facts must be those a fresh analyzer finds.
import { afterAll, describe, expect, it } from "vitest";
import { AnalysisBudget, BudgetExceeded } from "../../src/analyze/budget.js";
import { compile, createCompiler, sharesChecker } from "../../src/analyze/compile/compile.js";
import { SHARED_CHECKER_LIMITS } from "../../src/analyze/limits.js";
import { createAnalyzer } from "../../src/analyze/create-analyzer.js";
import { ts } from "../../src/analyze/compile/typescript.js";
import type { Facts } from "../../src/model/facts.js";
import { corpus } from "./corpus.js";
import { PRELUDE, programOf } from "./harness.js";
import { STEP_BUDGET } from "./support/step-budget.js";
import { testManifests } from "./support/test-manifests.js";

const set = testManifests();
const analyzer = createAnalyzer(set, { budget: STEP_BUDGET });
afterAll(() => analyzer.dispose());

const messages = (f: Facts): string[] => f.diagnostics.map((d) => `${d.line}:${d.column} ${d.code} ${d.message}`);
const never = { isCancellationRequested: () => false, throwIfCancellationRequested: () => {} };

describe("the shared checker", () => {
  it("reports a type error every time the same program comes again", () => {
    const source = programOf({
      main: `const n: number = "text"; await sendEmail({ to: ["a@x.com"], subject: String(n), body: "b" });`,
    });
    const first = analyzer.analyze(source);
    expect(messages(first).join("\n")).toMatch(/type_error Type 'string' is not assignable to type 'number'/);
    for (let i = 0; i < 3; i++) expect(messages(analyzer.analyze(source))).toEqual(messages(first));
  });

  it("keeps no declaration of one program for the next", () => {
    const declares = programOf({
      top: `const helper = "a@x.com";\ninterface Extra { to: string }`,
      main: `await sendEmail({ to: [helper], subject: "s", body: "b" });`,
    });
    expect(analyzer.analyze(declares).ok).toBe(true);
    const uses = analyzer.analyze(
      programOf({
        top: `const e: Extra = { to: helper };`,
        main: `await sendEmail({ to: [e.to], subject: "s", body: "b" });`,
      }),
    );
    expect(messages(uses).join("\n")).toMatch(/Cannot find name 'Extra'/);
    expect(messages(uses).join("\n")).toMatch(/Cannot find name 'helper'/);
  });

  it("keeps no global of a script or a global augmentation for the next program", () => {
    analyzer.analyze(`const leaked = "a@x.com";\n`); // a script: its declarations are global, in its own program
    analyzer.analyze(
      `${PRELUDE}declare global { interface Array<T> { evil(): string } }\nexport default program({ rationale: "r", guarantees: [], async main() {} });\n`,
    );
    const uses = analyzer.analyze(
      programOf({ main: `await sendEmail({ to: [leaked, [].evil()], subject: "s", body: "b" });` }),
    );
    expect(messages(uses).join("\n")).toMatch(/Cannot find name 'leaked'/);
    expect(messages(uses).join("\n")).toMatch(/Property 'evil' does not exist/);
  });

  it("is replaced after an interrupted check, and after its quota of programs or of text", () => {
    const compiler = createCompiler(set);
    const source = programOf({ main: `await sendEmail({ to: ["a@x.com"], subject: "s", body: "b" });` });
    const checkerOf = (): ts.TypeChecker => compiler.typeCheck(compiler.parse(source), never).checker;
    const first = checkerOf();
    expect(checkerOf()).toBe(first);
    // The checker asks its cancellation token between declarations: expire the budget there (the
    // budget read the clock twice before: when it was made, and before the type check).
    let reads = 0;
    const budget = new AnalysisBudget({ ms: 1_000, clock: () => (++reads > 2 ? 1e9 : 0) });
    expect(() => compile(compiler, source, budget)).toThrow(BudgetExceeded);
    compiler.discard(); // as the analyzer does after any analysis that throws
    const second = checkerOf();
    expect(second).not.toBe(first);
    for (let i = 1; i < SHARED_CHECKER_LIMITS.programs; i++) checkerOf();
    const third = checkerOf();
    expect(third).not.toBe(second);
    // and after its quota of program text
    const big = programOf({
      main: `await sendEmail({ to: ["a@x.com"], subject: "${"s".repeat(SHARED_CHECKER_LIMITS.chars)}", body: "b" });`,
    });
    compiler.typeCheck(compiler.parse(big), never);
    expect(checkerOf()).not.toBe(third);
  });

  it("a budget stop inside the checker leaves the next analysis exact", () => {
    const source = programOf(corpus[0]!);
    let reads = 0;
    const stopped = analyzer.analyze(source, { budget: { clock: () => (++reads > 3 ? 1e9 : 0) } });
    expect(stopped.diagnostics.map((d) => d.code)).toEqual(["analysis_budget_exceeded"]);
    const fresh = createAnalyzer(set, { budget: STEP_BUDGET });
    expect(analyzer.analyze(source)).toEqual(fresh.analyze(source));
    fresh.dispose();
  });
});

describe("sharesChecker: which programs get a program of their own", () => {
  const modules = new Set(["countersign", "trusted/email"]);
  const parse = (text: string): ts.SourceFile => ts.createSourceFile("/p.ts", text, ts.ScriptTarget.ES2022, true);
  const specifiers = (text: string): string[] | undefined => sharesChecker(parse(text), modules)?.map((s) => s.text);

  it("a module importing and re-exporting only the API's modules shares it", () => {
    expect(
      specifiers(
        `import { program } from "countersign";\nimport { sendEmail } from "trusted/email";\nexport { sendEmail } from "trusted/email";\nconst x = 1;\nexport { x };\n`,
      ),
    ).toEqual(["countersign", "trusted/email", "trusted/email"]);
    expect(specifiers(`export default 1;\n`)).toEqual([]);
  });

  it.each([
    ["a script", `const x = 1;\n`],
    ["a global augmentation", `export {};\ndeclare global { interface Array<T> { evil(): void } }\n`],
    ["a module augmentation", `export {};\ndeclare module "trusted/email" { export function more(): void }\n`],
    ["a namespace", `export {};\nnamespace N { export const a = 1; }\n`],
    ["export as namespace", `export const a = 1;\nexport as namespace Lib;\n`],
    ["an import of another module", `import { x } from "./other";\n`],
    ["a re-export of another module", `export * from "node:fs";\n`],
    ["import = require", `import fs = require("trusted/email");\nexport {};\n`],
    ["a dynamic import", `export {};\nconst m = import("trusted/email");\n`],
    ["an import type", `export {};\nlet t: typeof import("trusted/email");\n`],
    ["a reference directive", `/// <reference path="./other.ts" />\nexport {};\n`],
    ["a lib directive", `/// <reference lib="dom" />\nexport {};\n`],
    ["a types directive", `/// <reference types="node" />\nexport {};\n`],
    ["an AMD module name", `/// <amd-module name="x" />\nexport {};\n`],
  ])("%s does not", (_, text) => {
    expect(specifiers(text)).toBeUndefined();
  });
});
