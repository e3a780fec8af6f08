import { describe, expect, it } from "vitest";
import { decide, explain } from "../../src/policy/index.js";
import { facts, mail, policyOf, shippedManifests, val } from "./helpers.js";

// The strict mode: ask before mail to anyone but me whenever the agent was given untrusted data.
const STRICT = `
default = "ask"
given_hours = 6

[[rules]]
id = "mail.steered-agent"
decision = "ask"
op = "email.send_email"
when = { context = { untrusted = true } }
reason = "the agent read untrusted data earlier: it may have been steered"

[[rules]]
id = "mail.colleagues"
decision = "allow"
op = "email.send_email"
when = { args = { to = { elements = { in = ["bob@example.com"] } } } }
`;

const toBob = () => facts([mail(val(["bob@example.com"]))]);
const given = { untrusted: true, from: ["email.get_draft"], requests: ["req_1"] };

describe("when.context", () => {
  const policy = policyOf(STRICT);

  it("reads its lifetime from given_hours", () => {
    expect(policy.givenHours).toBe(6);
    expect(policyOf(`default = "ask"`).givenHours).toBe(24);
  });

  it("asks when the agent was given untrusted data, whatever the program's own values say", () => {
    const decision = decide({ ...toBob(), context: given }, policy, shippedManifests());
    expect(decision.kind).toBe("ask");
    expect(decision.effects[0]!.rule).toBe("mail.steered-agent");
    expect(decision.reason).toContain("req_1");
  });

  it("lets the same program through for an agent given nothing untrusted, or with no record read", () => {
    expect(
      decide({ ...toBob(), context: { untrusted: false, from: [], requests: [] } }, policy, shippedManifests()).kind,
    ).toBe("auto_approved");
    expect(decide(toBob(), policy, shippedManifests()).kind).toBe("auto_approved");
  });

  it("is explained in words", () => {
    const text = JSON.stringify(explain({ ...toBob(), context: given }, policy, shippedManifests()));
    expect(text).toContain("the agent was given untrusted data by its earlier runs: yes");
  });

  it("refuses a malformed context condition and a second given_hours", () => {
    expect(() => policyOf(STRICT.replace("context = { untrusted = true }", 'context = { untrusted = "yes" }'))).toThrow(
      /context/,
    );
    expect(() =>
      policyOf(STRICT.replace("context = { untrusted = true }", 'context = { from = ["email.get_draft"] }')),
    ).toThrow(/context/);
    expect(() => policyOf(STRICT.replace("given_hours = 6", "given_hours = -1"))).toThrow(/given_hours/);
  });
});
