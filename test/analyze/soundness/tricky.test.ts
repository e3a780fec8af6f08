import { afterAll, describe, expect, it } from "vitest";
import { createAnalyzer } from "../../../src/analyze/create-analyzer.js";
import type { GuaranteeStatus } from "../../../src/model/facts.js";
import { testManifests } from "../support/test-manifests.js";
import { checkProgram } from "./check-program.js";
import { STEP_BUDGET } from "../support/step-budget.js";

const set = testManifests();
const analyzer = createAnalyzer(set, { budget: STEP_BUDGET });
afterAll(() => analyzer.dispose());

const program = (guarantee: string, body: string): string => `import { program } from "countersign";
import { getDraft, sendEmail } from "trusted/email";
import { writeFile } from "trusted/fs";
import { atMostEmails, recipientsOnly } from "trusted/email/contracts";
import { writesUnder } from "trusted/fs/contracts";

export default program({
  rationale: "r",
  guarantees: [${guarantee}],
  async main() {
    ${body}
  },
});
`;

const mail = (to = `"a@x.com"`, subject = `"s"`): string => `{ to: [${to}], subject: ${subject}, body: "b" }`;

/**
 * Legal programs that run code where it is easy to overlook (callbacks the built-ins call,
 * continuations after an await, aliases of an argument object, finally blocks) and break their
 * guarantee when they do. The facts must cover the concrete run, and the guarantee must never be
 * proven; `status` is what a sound analysis may say.
 */
const cases: { name: string; guarantee: string; body: string; status: GuaranteeStatus[] }[] = [
  {
    name: "a .then callback",
    guarantee: "atMostEmails(1)",
    body: `await getDraft({ id: "1" }).then(async () => { await sendEmail(${mail()}); });\n    await sendEmail(${mail()});`,
    status: ["enforced", "refuted"],
  },
  {
    name: "a sort comparator",
    guarantee: "atMostEmails(0)",
    body: `const xs = ["b", "a"];\n    xs.sort((a, b) => { void sendEmail(${mail()}); return a < b ? -1 : 1; });`,
    status: ["enforced", "refuted"],
  },
  {
    name: "a then method run by await",
    guarantee: "atMostEmails(0)",
    body: `const t = { then: (resolve: (v: string) => void) => { void sendEmail(${mail()}); resolve("x"); } };\n    const s = await t;`,
    status: ["enforced", "refuted"],
  },
  {
    name: "a reduce callback",
    guarantee: "atMostEmails(2)",
    body: `const n = ["a", "b", "c"].reduce((acc: number, x: string) => { void sendEmail(${mail(undefined, "x")}); return acc + 1; }, 0);`,
    status: ["enforced", "refuted"],
  },
  {
    name: "an async forEach callback nobody awaits",
    guarantee: "atMostEmails(1)",
    body: `["a", "b"].forEach(async (x) => { await sendEmail(${mail(undefined, "x")}); });`,
    status: ["enforced", "refuted"],
  },
  {
    name: "a finally block after a return",
    guarantee: "atMostEmails(1)",
    body: `const f = async (): Promise<string> => {\n      try { return "a"; } finally { await sendEmail(${mail()}); }\n    };\n    await f();\n    await f();`,
    status: ["enforced", "refuted"],
  },
  {
    name: "a while (true) left by break",
    guarantee: "atMostEmails(2)",
    body: `let i = 0;\n    while (true) { i++; if (i > 3) break; await sendEmail(${mail(undefined, "String(i)")}); }`,
    status: ["enforced", "refuted"],
  },
  {
    name: "a detached call sees a later write",
    guarantee: `recipientsOnly(["a@x.com"])`,
    body: `let to = "a@x.com";\n    const slow = async (): Promise<void> => { await getDraft({ id: "1" }); await sendEmail(${mail("to")}); };\n    const p = slow();\n    to = "evil@x.com";\n    await p;`,
    status: ["enforced", "refuted"],
  },
  {
    name: "a closure called after a write",
    guarantee: `recipientsOnly(["a@x.com"])`,
    body: `let to = "a@x.com";\n    const later = async (): Promise<void> => { await sendEmail(${mail("to")}); };\n    to = "evil@x.com";\n    await later();`,
    status: ["enforced", "refuted"],
  },
  {
    name: "an array changed after it went into the argument object",
    guarantee: `recipientsOnly(["a@x.com"])`,
    body: `const to = ["a@x.com"];\n    const args = { to, subject: "s", body: "b" };\n    to.push("evil@x.com");\n    await sendEmail(args);`,
    status: ["enforced", "refuted"],
  },
  {
    name: "a spread copy shares its arrays",
    guarantee: `recipientsOnly(["a@x.com"])`,
    body: `const base = { to: ["a@x.com"], subject: "s", body: "b" };\n    const copy = { ...base };\n    copy.to.push("evil@x.com");\n    await sendEmail(base);`,
    status: ["enforced", "refuted"],
  },
  {
    name: "a write in a try block seen by the catch block",
    guarantee: `recipientsOnly(["a@x.com"])`,
    body: `let to = "a@x.com";\n    try { to = "evil@x.com"; throw new Error("x"); } catch (e) { await sendEmail(${mail("to", "String(e)")}); }`,
    status: ["enforced", "refuted"],
  },
  {
    name: "a path that climbs out of the folder",
    guarantee: `writesUnder("/home/user/Sandbox")`,
    body: `const dir = "/home/user/Sandbox/";\n    await writeFile({ path: dir + "../.bashrc", content: "x" });`,
    status: ["enforced", "refuted"],
  },
];

describe("tricky but legal programs", () => {
  for (const c of cases) {
    it(c.name, () => {
      const { facts, traces, problems } = checkProgram(analyzer, set, program(c.guarantee, c.body), [["text"]]);
      expect(problems).toEqual([]);
      expect(traces[0]!.calls.length).toBeGreaterThan(0);
      expect(c.status).toContain(facts.guarantees[0]?.status);
    });
  }
});
