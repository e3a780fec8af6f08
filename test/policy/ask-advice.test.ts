// The advice a dry run gives about a program a person would be asked about: the rule that asks
// and its reason, and whether a guarantee the program could add would change the decision.
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAnalyzer } from "../../src/analyze/index.js";
import { loadPolicy } from "../../src/config/index.js";
import { packageRoot } from "../../src/model/paths.js";
import { askAdvice } from "../../src/policy/index.js";
import type { Policy } from "../../src/policy/schema.js";
import { policyOf, shippedManifests } from "./helpers.js";

const set = shippedManifests();
const analyzer = createAnalyzer(set);
afterAll(() => analyzer.dispose());
const shipped = loadPolicy(join(packageRoot, "policies"), {
  manifests: set,
  home: "/home/user",
  ownAddresses: ["me@example.com"],
});

const program = (imports: string, body: string, guarantees = "") =>
  `import { program } from "countersign";\n${imports}\nexport default program({\n  rationale: "r",\n  ${guarantees === "" ? "" : `guarantees: [${guarantees}],\n  `}async main() {\n${body}\n  },\n});\n`;
const adviceOf = (source: string, policy: Policy = shipped) =>
  askAdvice(analyzer.analyze(source, { entry: "main.ts" }), policy, set);
const MAIL = 'import { sendEmail } from "trusted/email";';

describe("askAdvice", () => {
  it("is none for a program that runs without asking or is denied", () => {
    expect(
      adviceOf(program(MAIL, '    await sendEmail({ to: ["me@example.com"], subject: "s", body: "b" });')),
    ).toBeUndefined();
    expect(
      adviceOf(program('import { get } from "trusted/http";', '    await get({ url: "https://evil.example/x" });')),
    ).toBeUndefined();
  });

  it("names the rule that asks with its reason, and says no guarantee helps a POST", () => {
    const advice = adviceOf(
      program(
        'import { post } from "trusted/http";',
        '    await post({ url: "https://api.example.com/x", body: "{}" });',
      ),
    );
    expect(advice?.asks).toEqual([
      {
        op: "http.post",
        line: 6,
        rule: "http.post-asks",
        reason: "a POST sends data out of your machine",
        guarantee_could_help: false,
      },
    ]);
  });

  it("says no guarantee helps recipients an attacker's draft chose, even one promising they are mine", () => {
    const body =
      '    const d = await getDraft({ id: "d-1" });\n    await sendEmail({ to: [String(d.body)], subject: "s", body: "b" });';
    for (const guarantees of ["", 'recipientsOnly(["me@example.com"])']) {
      const advice = adviceOf(
        program(
          'import { getDraft, sendEmail } from "trusted/email";\nimport { recipientsOnly } from "trusted/email/contracts";',
          body,
          guarantees,
        ),
      );
      expect(advice?.asks).toEqual([
        expect.objectContaining({
          op: "email.send_email",
          rule: "email.untrusted-recipients",
          reason: "the recipients come from untrusted data",
          guarantee_could_help: false,
        }),
      ]);
    }
  });

  it("says no guarantee helps mail to a colleague no rule allows: the default asks", () => {
    const advice = adviceOf(
      program(MAIL, '    await sendEmail({ to: ["bob@example.com"], subject: "s", body: "b" });'),
    );
    expect(advice?.asks).toEqual([
      expect.objectContaining({
        rule: null,
        reason: "no rule covers it; the policy default is ask",
        guarantee_could_help: false,
      }),
    ]);
  });

  it("says a guarantee could help when an allow rule's condition on a value is only unproven", () => {
    const policy = policyOf(
      'default = "ask"\n[[rules]]\nid = "to-bob"\ndecision = "allow"\nop = "email.send_email"\nwhen = { args = { to = { in = ["bob@example.com"] } } }\n',
    );
    const loop =
      '    for (const to of ["bob@example.com", "carol@example.com"]) await sendEmail({ to: [to], subject: "s", body: "b" });';
    expect(adviceOf(program(MAIL, loop), policy)?.asks).toEqual([
      expect.objectContaining({ rule: null, guarantee_could_help: true }),
    ]);
  });
});
