import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAnalyzer } from "../../src/analyze/index.js";
import { admitCall } from "../../src/connector/admission.js";
import { packageRoot } from "../../src/model/paths.js";
import { decide } from "../../src/policy/decide.js";
import { VerifiedReceipt } from "../../src/receipt/verified-receipt.js";
import { withAgent } from "../support/agent-manifests.js";
import { policyOf } from "./helpers.js";

// The example agent action: its `issue` input is sent as the http.post body.
const agentSet = withAgent(
  [
    {
      name: "create_issue.toml",
      text: readFileSync(join(packageRoot, "examples/agent-manifests/create_issue.toml"), "utf8"),
    },
  ],
  {
    hosts: { http: ["api.example.com:443"] },
    roots: {},
  },
);
const analyzer = createAnalyzer(agentSet);
afterAll(() => analyzer.dispose());

// Fail closed: the rule fires unless the body parses (each key once) and names one of ours.
const policy = policyOf(
  `
[[rules]]
id = "body-recipient"
decision = "deny"
op = "http.post"
when = { args = { body = { not = { json = { at = { path = "$.assignee", is = { in = ["ok@example.com"] } } } } } } }
reason = "an issue is assigned to one of ours only"

[[rules]]
id = "issues"
decision = "allow"
op = "http.post"

[[rules]]
id = "drafts"
decision = "allow"
op = "email.get_draft"
`,
  agentSet,
);

function decideOn(issue: string) {
  const source = `import { program } from "countersign";
import { createIssue } from "trusted/agent";
import { getDraft } from "trusted/email";
export default program({
  rationale: "File the issue.",
  async main() {
    ${issue}
  },
});`;
  return decide(analyzer.analyze(source, { entry: "p.ts" }), policy, agentSet);
}

describe("a deny rule that looks into an http.post body through an agent action", () => {
  it("denies an agent action that puts an attacker's address in the body", () => {
    const d = decideOn(
      `await createIssue({ repo: "acme/widgets", issue: '{"title":"x","assignee":"evil@attacker.com"}' });`,
    );
    expect(d.kind).toBe("auto_rejected");
    expect(d.reason).toMatch(/body-recipient/);
  });

  it("denies the attacker's address hidden behind an escaped key, and a duplicate key", () => {
    const escaped = decideOn(
      `await createIssue({ repo: "acme/widgets", issue: '{"title":"x","\\\\u0061ssignee":"evil@attacker.com"}' });`,
    );
    expect(escaped.kind).toBe("auto_rejected");
    const twice = decideOn(
      `await createIssue({ repo: "acme/widgets", issue: '{"assignee":"ok@example.com","assignee":"evil@attacker.com"}' });`,
    );
    expect(twice.kind).toBe("auto_rejected");
  });

  it("lets one of ours through, in any spelling of the key", () => {
    expect(
      decideOn(`await createIssue({ repo: "acme/widgets", issue: '{"title":"x","assignee":"ok@example.com"}' });`).kind,
    ).toBe("auto_approved");
  });

  it("a body the analysis does not know goes to a person, and the approval carries a guard that checks the body at the call", () => {
    const d = decideOn(`const draft = await getDraft({ id: "r-1" });
    await createIssue({ repo: "acme/widgets", issue: draft.body });`);
    expect(d.kind).toBe("ask");
    expect(d.effects[1]).toMatchObject({ op: "http.post", rule: "body-recipient", verdict: "ask" });
    // The negation stays double: on a list `not not` is element-wise, unlike `json`.
    const guard = {
      op: "http.post",
      args: { body: { not: { not: { json: { at: { path: "$.assignee", is: { in: ["ok@example.com"] } } } } } } },
    };
    expect(d.guards).toEqual([guard]);
    expect(d.grants.find((g) => g.op === "http.post")?.args.body).toEqual(
      expect.objectContaining({ all: expect.arrayContaining([guard.args.body]) }),
    );
    // Approved as it stands: the wrapper admits each call only under the grant, guard included.
    const receipt = new VerifiedReceipt("k", {
      iss: "t",
      aud: "countersign-runner",
      sub: "r",
      iat: 0,
      nbf: 0,
      exp: 4_102_444_800,
      jti: "A".repeat(22),
      program: { sha256: "0".repeat(64), entry: "p.ts" },
      decision: "approved_once",
      policy: { sha256: "0".repeat(64) },
      grants: d.grants,
      across: [],
    });
    const post = (body: string) => () =>
      admitCall(receipt, agentSet, "http.post", {
        url: "https://api.example.com/repos/acme/widgets/issues",
        body,
        content_type: "application/json",
      });
    expect(post('{"title":"x","assignee":"ok@example.com"}')().args.body).toBe(
      '{"title":"x","assignee":"ok@example.com"}',
    );
    for (const body of [
      '{"assignee":"evil@attacker.com"}',
      '{"\\u0061ssignee":"evil@attacker.com"}',
      '{"assignee":"ok@example.com","assignee":"evil@attacker.com"}',
      '{"title":"no assignee"}',
      "not json",
    ]) {
      expect(post(body), body).toThrow(expect.objectContaining({ class: "grant_violation" }));
    }
  });
});
