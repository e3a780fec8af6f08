import { afterAll, describe, expect, it } from "vitest";
import { createAnalyzer } from "../../../src/analyze/create-analyzer.js";
import type { Facts } from "../../../src/model/facts.js";
import { compileProgram } from "../support/concrete-runner.js";
import { testManifests } from "../support/test-manifests.js";
import { violations } from "./violations.js";
import { STEP_BUDGET } from "../support/step-budget.js";

const set = testManifests();
const analyzer = createAnalyzer(set, { budget: STEP_BUDGET });
afterAll(() => analyzer.dispose());

const source = `import { program } from "countersign";
import { getDraft, sendEmail } from "trusted/email";
import { recipientsOnly } from "trusted/email/contracts";

export default program({
  rationale: "r",
  guarantees: [recipientsOnly(["a@x.com", "b@x.com"]), { op: "fs.*", count: { max: 0 } }],
  async main() {
    const draft = await getDraft({ id: "d1" });
    for (const to of ["a@x.com", "b@x.com"]) {
      await sendEmail({ to: [to], subject: "s", body: String(draft.body) });
    }
  },
});
`;

const facts = analyzer.analyze(source);
const trace = compileProgram(source, set).run({ readText: () => "text" });
const tampered = (change: (f: Facts) => void): string[] => {
  const copy = structuredClone(facts);
  change(copy);
  return violations(copy, [trace], set);
};
const send = (f: Facts) => f.effects.find((e) => e.op === "email.send_email")!;

// The oracle of the property test must itself catch wrong facts, each kind of them.
describe("violations", () => {
  it("finds none for the analyzer's facts of a straight program", () => {
    expect(facts.ok).toBe(true);
    expect(trace.outcome).toBe("returned");
    expect(trace.calls.map((c) => [c.op, c.args.to])).toEqual([
      ["email.get_draft", undefined],
      ["email.send_email", ["a@x.com"]],
      ["email.send_email", ["b@x.com"]],
    ]);
    expect(violations(facts, [trace], set)).toEqual([]);
  });

  it("a call at a site without an effect", () => {
    expect(tampered((f) => (f.effects = f.effects.filter((e) => e.op !== "email.send_email")))).toContainEqual(
      expect.stringMatching(/email.send_email at 11:13 has no effect/),
    );
  });

  it("an argument outside its abstract value", () => {
    expect(tampered((f) => (send(f).args.to = { kind: "const", values: [["a@x.com"]] }))).toEqual([
      expect.stringMatching(/sent to = \["b@x.com"\], outside/),
    ]);
  });

  it("an argument sent that the facts say is never passed", () => {
    const found = expect.stringMatching(/sent subject = "s", the analysis says it is never passed/);
    expect(tampered((f) => delete send(f).args.subject)).toEqual([found, found]); // once per call at the site
  });

  it("a count above the maximum, and below the minimum of a run that returned", () => {
    expect(tampered((f) => (send(f).count = { min: 0, max: 1 }))).toEqual([
      expect.stringMatching(/ran 2 times, outside 0..1/),
    ]);
    expect(tampered((f) => (send(f).count = { min: 3, max: null }))).toEqual([
      expect.stringMatching(/ran 2 times, outside 3..∞/),
    ]);
  });

  it("a proven guarantee the run breaks, a refuted one it keeps", () => {
    const proven = tampered((f) => (f.guarantees[0]!.source = { op: "email.*", args: { to: { in: ["a@x.com"] } } }));
    expect(proven).toContainEqual(expect.stringMatching(/proven guarantee recipientsOnly.* is broken by call 3/));
    expect(tampered((f) => (f.guarantees[1]!.status = "refuted"))).toContainEqual(
      expect.stringMatching(/refuted guarantee .* holds in this run/),
    );
  });
});

// A call whose arguments are not plain data is refused before it reaches the host; the program made it all the same.
describe("violations with a call refused at the boundary", () => {
  const holes = source
    .replace(
      "await sendEmail({ to: [to],",
      'const list: string[] = [];\n      list[to === "a@x.com" ? 0 : 1] = to;\n      await Promise.allSettled([sendEmail({ to: list,',
    )
    .replace("String(draft.body) });", "String(draft.body) })]);");
  const holesFacts = analyzer.analyze(holes);
  const holesTrace = compileProgram(holes, set).run({ readText: () => "text" });

  it("counts the refused call at its site", () => {
    expect(holesFacts.diagnostics).toEqual([]);
    expect(holesTrace.calls.filter((c) => c.op === "email.send_email").map((c) => c.args.to)).toEqual([["a@x.com"]]);
    expect(holesTrace.refused.map((r) => r.op)).toEqual(["email.send_email"]);
    expect(violations(holesFacts, [holesTrace], set)).toEqual([]);
    const capped = structuredClone(holesFacts);
    send(capped).count = { min: 0, max: 1 };
    expect(violations(capped, [holesTrace], set)).toEqual([expect.stringMatching(/ran 2 times, outside 0..1/)]);
  });

  it("leaves a refuted guarantee over the refused call's op undecided, and judges the others", () => {
    const refuted = structuredClone(holesFacts);
    refuted.guarantees[0]!.status = "refuted"; // email.*: the refused call's arguments are unknown
    refuted.guarantees[1]!.status = "refuted"; // fs.*: no call refused
    expect(violations(refuted, [holesTrace], set)).toEqual([
      expect.stringMatching(/refuted guarantee .*fs.* holds in this run/),
    ]);
  });
});
