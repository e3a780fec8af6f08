import { afterAll, describe, expect, it } from "vitest";
import { AnalysisBudget, BudgetExceeded } from "../../src/analyze/budget.js";
import { DEFAULT_BUDGET, MAX_FUNCTION_NODES } from "../../src/analyze/limits.js";
import { createAnalyzer } from "../../src/analyze/create-analyzer.js";
import { ts } from "../../src/analyze/compile/typescript.js";
import type { Facts } from "../../src/model/facts.js";
import { located, prog } from "./hostile/program.js";
import { lines, slowPrograms } from "./support/slow-programs.js";
import { STEP_BUDGET } from "./support/step-budget.js";
import { testManifests } from "./support/test-manifests.js";

// Only the step and size limits can stop these analyses (STEP_BUDGET's clock never moves), so every
// result here is the same on any machine, however loaded.
const analyzer = createAnalyzer(testManifests(), { budget: STEP_BUDGET });
afterAll(() => analyzer.dispose());

const codes = (f: Facts): string[] => f.diagnostics.map((d) => `${d.code} ${d.construct ?? ""}`.trim());

function refusedForBudget(facts: Facts, limit: RegExp): void {
  expect(facts.ok).toBe(false);
  expect(facts.effects).toEqual([]);
  expect(codes(facts)).toEqual(["analysis_budget_exceeded"]);
  expect(facts.diagnostics[0]!.message).toMatch(limit);
}

describe("the budget itself", () => {
  it("refuses limits that are not positive numbers", () => {
    for (const bad of [{ ms: 0 }, { steps: -1 }, { bytes: Number.NaN }, { ms: Number.POSITIVE_INFINITY }]) {
      expect(() => new AnalysisBudget(bad)).toThrow(RangeError);
      expect(() => createAnalyzer(testManifests(), { budget: bad })).toThrow(RangeError);
    }
  });

  it("counts steps exactly and reads the clock once per 1024 steps", () => {
    let now = 0;
    let reads = 0;
    const budget = new AnalysisBudget({ ms: 10, steps: 5000, clock: () => (reads++, now) });
    const node = ts.factory.createIdentifier("x");
    for (let i = 0; i < 1023; i++) budget.step(node);
    expect(reads).toBe(1); // the deadline, when the budget was made
    now = 11;
    expect(() => budget.step(node)).toThrow(BudgetExceeded); // the 1024th step looks at the clock
    const steps = new AnalysisBudget({ steps: 3, clock: () => 0 });
    steps.step(node);
    steps.step(node);
    steps.step(node);
    expect(() => steps.step(node)).toThrow(expect.objectContaining({ limit: "steps", at: node }));
  });

  it("gives the type checker a cancellation token that stops it past the deadline", () => {
    let now = 0;
    const token = new AnalysisBudget({ ms: 5, clock: () => now }).cancellationToken();
    expect(token.isCancellationRequested()).toBe(false);
    token.throwIfCancellationRequested();
    now = 5;
    expect(token.isCancellationRequested()).toBe(true);
    expect(() => token.throwIfCancellationRequested()).toThrow(ts.OperationCanceledException);
  });
});

describe("the size cap counts UTF-8 bytes", () => {
  it("refuses a program over the cap before parsing it, though its UTF-16 length is under it", () => {
    const source = prog(`// ${"€".repeat(400)}`); // each € is 3 bytes and 1 UTF-16 unit
    const bytes = Buffer.byteLength(source);
    expect(source.length).toBeLessThan(1000);
    expect(bytes).toBeGreaterThan(1000);
    const facts = analyzer.analyze(source, { budget: { bytes: 1000 } });
    refusedForBudget(facts, new RegExp(`the program is ${bytes} bytes, more than the analysis's limit of 1000 bytes`));
    expect(analyzer.analyze(source, { budget: { bytes } }).ok).toBe(true); // exactly at the cap
  });

  it("is 256 KiB by default", () => {
    expect(DEFAULT_BUDGET.bytes).toBe(262144);
    const source = prog(`// ${"x".repeat(262144)}`);
    refusedForBudget(analyzer.analyze(source), /more than the analysis's limit of 262144 bytes/);
  });
});

describe("slow programs stop within the budget", () => {
  const analyzed = (name: keyof typeof slowPrograms): Facts => analyzer.analyze(slowPrograms[name]);

  it("four nested 60-iteration loops: unrolling stops after its allowance and the loops widen", () => {
    const facts = analyzed("four nested 60-iteration loops");
    expect(codes(facts)).toEqual([]);
    expect(facts.effects.map((e) => e.count)).toEqual([{ min: 1, max: 1 }]);
    expect(facts.effects[0]!.args.subject!.kind).not.toBe("const"); // n is no longer computed exactly
  });

  it("a call inside four nested loops: counted unbounded instead of 60^4 times", () => {
    const facts = analyzed("a call inside four nested 60-iteration loops");
    expect(codes(facts)).toEqual([]);
    const [count] = facts.effects.map((e) => e.count);
    expect(count!.max).toBeNull(); // the unrolled iterations still count towards the minimum
    expect(count!.min).toBeGreaterThan(0);
    expect(count!.min).toBeLessThanOrEqual(60 ** 4);
  });

  it("small nested loops stay exact", () => {
    const facts = analyzer.analyze(
      prog(
        `for (const to of ["a@x.com", "b@x.com", "c@x.com"]) for (let i = 0; i < 4; i++) await sendEmail({ to: [to], subject: "s", body: "b" });`,
      ),
    );
    expect(facts.effects.map((e) => [e.count, e.args.to])).toEqual([
      [
        { min: 12, max: 12 },
        { kind: "const", values: [["a@x.com"], ["b@x.com"], ["c@x.com"]] },
      ],
    ]);
  });

  it("a helper call tree of depth 12 and fan-out 3 runs out of steps where it is", () => {
    const facts = analyzed("a helper call tree of depth 12, fan-out 3");
    refusedForBudget(facts, new RegExp(`budget of ${DEFAULT_BUDGET.steps} steps here`));
    expect(facts.diagnostics[0]!.line).toBeGreaterThan(9); // inside the helpers, not at the start
  });

  it("a wide tree of Promise.all over helpers with loops: bounded once the unroll allowance is spent", () => {
    const facts = analyzed("Promise.all of 40 × 40 helpers with loops");
    expect(codes(facts)).toEqual([]);
    expect(facts.effects.map((e) => e.count.max)).toEqual([null]);
  });

  it("the same tree over helpers calling helpers runs out of steps", () => {
    refusedForBudget(analyzed("Promise.all of 40 × 40 helpers calling 8 helpers"), /steps/);
  });

  it("deep recursion of helpers is cut at the first repeat: a bounded result", () => {
    const facts = analyzed("deep recursion of helpers");
    expect(codes(facts)).toEqual([]);
    expect(facts.effects.map((e) => e.count)).toEqual([{ min: 1, max: null }]);
  });

  it("a string tripled 40 times: the constant stops growing, the result is bounded", () => {
    const facts = analyzed("a string tripled 40 times");
    expect(codes(facts)).toEqual([]);
    expect(facts.effects.map((e) => e.count)).toEqual([{ min: 1, max: 1 }]);
  });

  it("a string of read data doubled 40 times: its provenance stays the few sources it came from", () => {
    const facts = analyzed("a string of read data doubled 40 times");
    expect(codes(facts)).toEqual([]);
    const subject = facts.effects.find((e) => e.op === "email.send_email")!.args.subject!;
    expect(subject.kind).toBe("string");
    expect(subject.kind === "string" && subject.provenance.length).toBeLessThanOrEqual(3);
    expect(subject.kind === "string" && subject.provenance.some((p) => p.untrusted)).toBe(true);
  });

  it("a huge array literal: refused as too large to check at once, before the type check", () => {
    const facts = analyzed("an array literal of 60000 elements");
    refusedForBudget(facts, new RegExp(`this function holds more than ${MAX_FUNCTION_NODES} syntax nodes`));
    expect(facts.diagnostics[0]).toMatchObject({ line: 10, column: 3 }); // at main, the function that holds it
  });

  it("thousands of call sites in one function: refused as too large; split into helpers they are analyzed", () => {
    refusedForBudget(analyzed("1500 call sites in one function"), /syntax nodes/);
    const helpers =
      lines(
        30,
        (k) =>
          `async function g${k}(): Promise<void> {\n${lines(50, (i) => `  await sendEmail({ to: ["a@x.com"], subject: "s${k}-${i}", body: "b" });`)}\n}`,
      ) + "\n";
    const facts = analyzer.analyze(
      prog(
        lines(30, (k) => `await g${k}();`, "\n    "),
        { top: helpers },
      ),
      { budget: { bytes: 1 << 20 } },
    );
    expect(codes(facts)).toEqual([]);
    expect(facts.effects).toHaveLength(1500);
  });

  it("a huge union type: refused as too large before the type check", () => {
    refusedForBudget(analyzed("a union of 12000 string literals"), /the program's top level holds more than/);
  });

  it("deeply nested types: refused as too deep before the type check", () => {
    expect(codes(analyzed("object types nested 150 deep"))).toEqual(["unsupported deep nesting"]);
  });

  it("types that compute are refused before the type check", () => {
    expect(codes(analyzed("a recursive conditional type (900 levels)"))).toEqual([
      "refused_construct conditional type",
    ]);
    expect(codes(analyzed("a template literal union of 10^4 strings"))).toEqual([
      "refused_construct template literal type",
    ]);
    const { source, line, column } = located(prog("", { top: `type M<T> = ⟦{ [K in keyof T]: T[K] };\n` }));
    expect(analyzer.analyze(source).diagnostics).toEqual([
      expect.objectContaining({ code: "refused_construct", construct: "mapped type", line, column }),
    ]);
  });

  it("a type check that runs past the deadline is stopped there (a clock that moves 1 ms per read)", () => {
    let now = 0;
    const facts = analyzer.analyze(slowPrograms["300 small functions"], { budget: { ms: 100, clock: () => now++ } });
    refusedForBudget(facts, /budget of 100 ms: /);
    expect(now).toBeLessThan(150); // the checker asked for the time between functions and stopped
  });
});
