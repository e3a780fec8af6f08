import { createHash } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { createAnalyzer } from "../../../src/analyze/create-analyzer.js";
import type { Json } from "../../../src/model/json.js";
import { runProgram, sandboxApi } from "../../../src/sandbox/index.js";
import { testManifests } from "../support/test-manifests.js";
import { checkProgram } from "./check-program.js";
import { contains } from "./contains.js";
import type { RegressionCase } from "./regression-case.js";
import { controlCases } from "./regressions-control.js";
import { iterationCases } from "./regressions-iteration.js";
import { valueCases } from "./regressions-values.js";
import { STEP_BUDGET } from "../support/step-budget.js";

const set = testManifests();
const analyzer = createAnalyzer(set, { budget: STEP_BUDGET });
afterAll(() => analyzer.dispose());

/** Minimal programs on which the facts once disagreed with a concrete run (found by the property test). */
const found: RegressionCase[] = [
  {
    name: "an async helper that sends and then throws, called twice without waiting: both sends happen",
    source: `import { program } from "countersign";
import { sendEmail } from "trusted/email";
import { atMostEmails } from "trusted/email/contracts";

async function notify(): Promise<void> {
  await sendEmail({ to: ["a@x.com"], subject: "s", body: "b" });
  throw new Error("stop");
}

export default program({
  rationale: "r",
  guarantees: [atMostEmails(1)],
  async main() {
    const first = notify();
    const second = notify();
    await first;
    await second;
  },
});
`,
  },
  {
    name: "a trusted function put in an object by shorthand, then called through a wider function type: a hidden send",
    refused: "trusted function sendEmail used as a value",
    source: `import { program } from "countersign";
import { sendEmail } from "trusted/email";
import { recipientsOnly } from "trusted/email/contracts";

export default program({
  rationale: "r",
  guarantees: [recipientsOnly(["a@x.com"])],
  async main() {
    const box = { sendEmail };
    const f: (a: { to: string[]; subject: string; body: string }) => Promise<unknown> = box.sendEmail;
    await f({ to: ["evil@x.com"], subject: "s", body: "b" });
  },
});
`,
  },
  {
    name: "an element write evaluates its key before the value: a[i] = (i = 1, x) writes a[0]",
    source: `import { program } from "countersign";
import { sendEmail } from "trusted/email";
import { recipientsOnly } from "trusted/email/contracts";

export default program({
  rationale: "r",
  guarantees: [recipientsOnly(["a@x.com", "c@y.org"])],
  async main() {
    let i = 0;
    const to = ["a@x.com", "b@x.com"];
    to[i] = (i = 1, "c@y.org");
    await sendEmail({ to: to, subject: "s", body: "b" });
  },
});
`,
  },
  {
    name: "Object.keys of an object whose field may be absent lists only the fields it has",
    reads: [[""], ["a long body"]],
    source: `import { program } from "countersign";
import { getDraft, sendEmail } from "trusted/email";
import { recipientsOnly } from "trusted/email/contracts";

export default program({
  rationale: "r",
  guarantees: [recipientsOnly(["b@x.com"])],
  async main() {
    const body = String((await getDraft({ id: "1" })).body);
    const o = body.length > 3 ? { "b@x.com": body, "a@x.com": body } : { "a@x.com": body };
    const first = Object.keys(o)[0] ?? "b@x.com";
    await sendEmail({ to: [first], subject: "s", body: "b" });
  },
});
`,
  },
];

const cases = [...found, ...controlCases, ...iterationCases, ...valueCases];

describe("soundness regressions", () => {
  for (const c of cases) {
    const test = c.open === true ? it.fails : it;
    test(c.name, () => {
      if (c.refused !== undefined) {
        const facts = analyzer.analyze(c.source);
        expect(facts.ok).toBe(false);
        expect(facts.diagnostics.map((d) => d.construct)).toContain(c.refused);
        return;
      }
      const { facts, problems } = checkProgram(analyzer, set, c.source, c.reads ?? [[]]);
      expect(problems).toEqual([]);
      if (c.statuses !== undefined) expect(facts.guarantees.map((g) => g.status)).toEqual(c.statuses);
    });
  }
});

/**
 * Programs on which the analyzer (computing in V8) and the sandbox (QuickJS) once disagreed
 * (found by test/sandbox/exact-builtins.test.ts): the concrete runner shares the analyzer's
 * engine, so these run in the sandbox itself, and what it sends must lie within the facts.
 */
const engineCases: { name: string; source: string }[] = [
  {
    name: "parseInt past 2^53 in radix 36: QuickJS rounds the last digit otherwise",
    source: probe(`String(parseInt("s9pduzto9qrb0gnpxz08m", 36))`),
  },
  {
    name: "a power with a negative exponent: QuickJS rounds 7 ** -23 otherwise",
    source: probe(`String(7 ** -23)`),
  },
];

function probe(subject: string): string {
  return `import { program } from "countersign";
import { sendEmail } from "trusted/email";

export default program({
  rationale: "r",
  guarantees: [],
  async main() {
    await sendEmail({ to: ["a@x.com"], subject: ${subject}, body: "b" });
  },
});
`;
}

/** The calls a run of `source` in the sandbox makes, with their arguments as sent. */
async function sandboxCalls(source: string): Promise<{ op: string; args: Record<string, Json> }[]> {
  const bytes = Buffer.from(source, "utf8");
  const calls: { op: string; args: Record<string, Json> }[] = [];
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  const result = await runProgram({
    source: bytes,
    sha256,
    entry: "program.ts",
    api: sandboxApi(set),
    invoke: async (op, args) => (calls.push({ op, args }), { id: "x" }),
  });
  expect(result.outcome).toBe("returned");
  return calls;
}

describe("soundness regressions where the engines differ", () => {
  for (const c of engineCases) {
    it(c.name, async () => {
      const facts = analyzer.analyze(c.source);
      expect(facts.diagnostics).toEqual([]);
      const calls = await sandboxCalls(c.source);
      expect(calls).toHaveLength(1);
      const effect = facts.effects.find((e) => e.op === calls[0]!.op)!;
      for (const [input, sent] of Object.entries(calls[0]!.args))
        expect(contains(effect.args[input]!, sent), `${input} = ${JSON.stringify(sent)}`).toBe(true);
    });
  }
});
