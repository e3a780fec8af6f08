import { afterAll, describe, expect, it } from "vitest";
import { createAnalyzer } from "../../../src/analyze/create-analyzer.js";
import type { Facts } from "../../../src/model/facts.js";
import { compileProgram } from "../support/concrete-runner.js";
import { withTestAgents } from "../support/agent-test-manifests.js";
import { testManifests } from "../support/test-manifests.js";
import { checkProgram } from "./check-program.js";
import { controlViolations, dataViolations, labelled } from "./labels.js";
import { STEP_BUDGET } from "../support/step-budget.js";

const set = testManifests();
const analyzer = createAnalyzer(set, { budget: STEP_BUDGET });
afterAll(() => analyzer.dispose());

const program = (body: string): string => `import { program } from "countersign";
import { getDraft, sendEmail } from "trusted/email";
import { readFile } from "trusted/fs";

export default program({
  rationale: "r",
  async main() {
${body}
  },
});
`;

const forward = program(`    const d = await getDraft({ id: "r-1" });
    const words = String(d.body).split(" ");
    await sendEmail({ to: ["me@x.com"], subject: "s", body: words.join(" ") });
    if (String(d.subject) === "urgent") await sendEmail({ to: ["boss@x.com"], subject: "s", body: "b" });`);

/** The facts with every source and influence taken away: what a wrong analysis would claim. */
function withoutProvenance(facts: Facts): Facts {
  return {
    ...facts,
    effects: facts.effects.map((e) => ({
      ...e,
      sources: Object.fromEntries(Object.keys(e.args).map((k) => [k, []])),
      influencedBy: [],
    })),
  };
}

describe("provenance checked against labelled runs", () => {
  it("a labelled read marks what derives from it, and only that", () => {
    const trace = compileProgram(forward, set).run({ readText: (op, n) => labelled(set, op, `text ${n}`) });
    const sent = trace.calls.find((c) => c.op === "email.send_email")!;
    const label = labelled(set, "email.get_draft", "").slice(0, 1);
    expect(sent.args.body).toContain(label);
    expect(JSON.stringify(sent.args.to)).not.toContain(label);
  });

  it("the checks catch an analysis that claims no sources and no influence", () => {
    const facts = analyzer.analyze(forward);
    const compiled = compileProgram(forward, set);
    const run = compiled.run({ readText: (op, n) => labelled(set, op, `text ${n}`) });
    expect(dataViolations(facts, run, set)).toEqual([]);
    expect(dataViolations(withoutProvenance(facts), run, set).join("\n")).toMatch(
      /body = .*holds email.get_draft's data/,
    );
    expect(controlViolations(facts, compiled, ["urgent"])).toEqual([]);
    expect(controlViolations(withoutProvenance(facts), compiled, ["urgent"]).join("\n")).toMatch(
      /ran 1 times, and 0 times when email.get_draft read/,
    );
  });

  it("the analysis finds the draft behind the body, the literal behind the recipients, and the branch", () => {
    const { facts, problems } = checkProgram(analyzer, set, forward, [["urgent"], ["a@x.com b@x.com"]]);
    expect(problems).toEqual([]);
    const [first, second] = facts.effects.filter((e) => e.op === "email.send_email");
    expect(first!.sources!.to).toEqual([]);
    expect(first!.sources!.body).toEqual([
      { source: "result of email.get_draft", untrusted: true, op: "email.get_draft", path: "$.body" },
    ]);
    expect(first!.influencedBy).toEqual([]);
    expect(second!.influencedBy).toEqual([
      { source: "result of email.get_draft", untrusted: true, op: "email.get_draft", path: "$.subject" },
    ]);
  });

  it.each([
    [
      "a value chosen in a branch over a read",
      `const d = await getDraft({ id: "r" }); let to = "a@x.com"; if (String(d.body).length > 3) to = "b@x.com"; await sendEmail({ to: [to], subject: "s", body: "b" });`,
    ],
    [
      "a loop over a read's words",
      `const d = await getDraft({ id: "r" }); for (const w of String(d.body).split(" ")) await sendEmail({ to: ["a@x.com"], subject: w, body: "b" });`,
    ],
    [
      "a comparison stored and used later",
      `const d = await getDraft({ id: "r" }); const urgent = String(d.subject) === "urgent"; const to = urgent ? ["a@x.com"] : ["b@x.com"]; await sendEmail({ to, subject: "s", body: "b" });`,
    ],
    [
      "a caught failure on a read",
      `const d = await getDraft({ id: "r" }); let to = "a@x.com"; try { JSON.parse(String(d.body)); } catch { to = "b@x.com"; } await sendEmail({ to: [to], subject: "s", body: "b" });`,
    ],
    [
      "a recursive function that swaps its arguments",
      `const d = await getDraft({ id: "r" }); function g(a: string, b: string, n: number): string { return n > 0 ? g(b, a, n - 1) : a; } await sendEmail({ to: [g("a@x.com", String(d.body), 1)], subject: "s", body: "b" });`,
    ],
    [
      "a reduce that carries a read",
      `const f = await readFile({ path: "/x" }); const s = String(f.content).split(",").reduce((acc, x) => { void sendEmail({ to: ["a@x.com"], subject: acc, body: "b" }); return acc + x; }, ""); void s;`,
    ],
    [
      "a filter whose callback returns a read's data",
      `const d = await getDraft({ id: "r" }); const n = String(d.body).length - 7; const to = ["a@x.com", "b@x.com"].filter((x) => x.length + n - 7); await sendEmail({ to, subject: "s", body: "b" });`,
    ],
    [
      "a sort whose comparator reads",
      `const d = await getDraft({ id: "r" }); const n = String(d.body).length; const to = ["a@x.com", "b@x.com"].sort(() => n - 8); await sendEmail({ to: [to[0] ?? ""], subject: "s", body: "b" });`,
    ],
  ])("influence and sources hold for %s", (_name, body) => {
    const { problems, facts } = checkProgram(analyzer, set, program(`    ${body}`), [["a@x.com"], ["x,y,z", "{}"]]);
    expect(problems).toEqual([]);
    expect(facts.effects.length).toBeGreaterThan(0);
  });
});

describe("an action whose manifest says its result is trusted", () => {
  const listing = set.actions.get("fs.list_dir")!;
  const trusting = {
    ...set,
    actions: new Map([
      ...set.actions,
      [
        "fs.list_dir",
        {
          ...listing,
          manifest: {
            ...listing.manifest,
            result: { fields: listing.manifest.result.fields.map((field) => ({ ...field, trusted: true })) },
          },
        },
      ],
    ]),
  };
  const trustingAnalyzer = createAnalyzer(trusting, { budget: STEP_BUDGET });
  afterAll(() => trustingAnalyzer.dispose());
  const source = `import { program } from "countersign";
import { sendEmail } from "trusted/email";
import { listDir } from "trusted/fs";

export default program({
  rationale: "r",
  async main() {
    const dir = await listDir({ path: "/home/user/Sandbox" });
    await sendEmail({ to: ["a@x.com"], subject: "files", body: String(dir.entries) });
  },
});
`;

  it("gives data that is still from that op, but not untrusted", () => {
    const { facts, problems } = checkProgram(trustingAnalyzer, trusting, source, [["a.txt"]]);
    expect(problems).toEqual([]);
    const send = facts.effects.find((e) => e.op === "email.send_email")!;
    expect(send.sources!.body).toEqual([
      { source: "result of fs.list_dir", untrusted: false, op: "fs.list_dir", path: "$.entries" },
    ]);
    expect(
      analyzer.analyze(source).effects.find((e) => e.op === "email.send_email")!.sources!.body![0]!.untrusted,
    ).toBe(true);
  });
});

describe("a guarantee about provenance", () => {
  // The agent's API types refuse it first; the analysis refuses it again if it gets through.
  it("is refused: a run cannot check where a value came from", () => {
    const source = `import { program } from "countersign";
import { sendEmail } from "trusted/email";

export default program({
  rationale: "r",
  guarantees: [{ op: "email.send_email", args: { to: { untrusted: false } } }],
  async main() {
    await sendEmail({ to: ["a@x.com"], subject: "s", body: "b" });
  },
});
`;
    const facts = analyzer.analyze(source);
    expect(facts.ok).toBe(false);
    expect(facts.diagnostics.map((d) => d.message).join("\n")).toMatch(
      /'untrusted' does not exist in type 'ValueConstraint'|cannot say where a value came from/,
    );
  });
});

describe("an agent action's result", () => {
  const agents = withTestAgents(set);
  const agentAnalyzer = createAnalyzer(agents, { budget: STEP_BUDGET });
  afterAll(() => agentAnalyzer.dispose());
  // relay gets a URL, then posts the body it read: its result is the post's output.
  const source = `import { program } from "countersign";
import { relay } from "trusted/agent";
import { draftEmail } from "trusted/email";

export default program({
  rationale: "r",
  async main() {
    const r = await relay({ url: "https://api.x.com/v1" });
    await draftEmail({ to: [String(r.body)], subject: "s", body: "b" });
    if (String(r.body).length > 9) await draftEmail({ to: ["a@x.com"], subject: "long", body: "b" });
  },
});
`;

  it("derives from the action and from every step's op, all untrusted", () => {
    const { facts, problems } = checkProgram(agentAnalyzer, agents, source, [
      ["a@x.com"],
      ["hello world, a longer text"],
    ]);
    expect(problems).toEqual([]);
    const [first, second] = facts.effects.filter((e) => e.op === "email.draft_email");
    const ops = (ps: readonly { op?: string; untrusted: boolean }[]) => ps.map((p) => [p.op, p.untrusted]);
    expect(ops(first!.sources!.to!)).toEqual([
      ["agent.relay", true],
      ["http.get", true],
      ["http.post", true],
    ]);
    expect(ops(second!.influencedBy!)).toEqual([
      ["agent.relay", true],
      ["http.get", true],
      ["http.post", true],
    ]);
  });
});
