// Policy conditions on addresses, as an attacker spells them: a deny or ask condition catches
// every address reaching the named mailbox; inside `not` (and `not_in`) the address stays exact,
// so a deny on "not one of mine" still fires for my+tag; allow conditions stay exact. A deny
// rule's guard carries the same comparison into the receipt, and the run checks it.
import { describe, expect, it } from "vitest";
import { satisfiesCall } from "../../src/constraint/index.js";
import { ReceiptClaims } from "../../src/model/index.js";
import { decide } from "../../src/policy/decide.js";
import { generateKey, issueReceipt } from "../../src/receipt/index.js";
import { facts, list, mail, policyOf, shippedManifests, str, val } from "./helpers.js";

const set = shippedManifests();
const to = (...addresses: string[]) => val(addresses);
const rules = (when: string, decision = "deny") =>
  policyOf(
    `[[rules]]\nid = "r"\ndecision = "${decision}"\nop = "email.send_email"\nwhen = { args = { to = ${when} } }\n${decision === "deny" ? 'reason = "no"\n' : ""}[[rules]]\nid = "all"\ndecision = "allow"\nop = "email.send_email"\n`,
  );

describe("deny and ask conditions match every address of the mailbox", () => {
  it("in / eq: a +tag, case, a trailing dot; Gmail's dots and googlemail.com", () => {
    const deny = rules(`{ in = ["ceo@example.com", "boss@gmail.com"] }`);
    for (const spelled of ["ceo+tag@example.com", "CEO+x@Example.com.", "b.o.s.s+y@googlemail.com", "Boss@GMAIL.com"]) {
      expect(decide(facts([mail(to("bob@example.com", spelled))]), deny, set)).toMatchObject({
        kind: "auto_rejected",
        effects: [{ rule: "r", verdict: "deny" }],
      });
    }
    expect(decide(facts([mail(to("ceox@example.com", "c.eo@example.com"))]), deny, set).kind).toBe("auto_approved");
    expect(decide(facts([mail(to("ceo+x@example.com"))]), rules(`{ eq = "ceo@example.com" }`), set).kind).toBe(
      "auto_rejected",
    );
    expect(
      decide(facts([mail(to("ceo+x@example.com"))]), rules(`{ in = ["ceo@example.com"] }`, "ask"), set),
    ).toMatchObject({ kind: "ask", effects: [{ rule: "r" }] });
  });

  it("an ask condition fires when any recipient matches, as a deny does: one address among others is asked about", () => {
    const ask = rules(`{ in = ["cfo@example.com"] }`, "ask");
    for (const list of [
      ["bob@example.com", "cfo@example.com"],
      ["bob@example.com", "cfo+y@example.com"],
      ["CFO@example.com.", "bob@example.com"],
    ]) {
      expect(decide(facts([mail(to(...list))]), ask, set)).toMatchObject({
        kind: "ask",
        effects: [{ rule: "r", verdict: "ask" }],
      });
    }
    expect(decide(facts([mail(to("bob@example.com", "ann@example.com"))]), ask, set).kind).toBe("auto_approved");
    // "Ask before mail outside": one outside address among colleagues is enough.
    const outside = rules(`{ not = { glob = "*@example.com" } }`, "ask");
    expect(decide(facts([mail(to("bob@example.com", "eve@evil.example"))]), outside, set)).toMatchObject({
      kind: "ask",
      effects: [{ rule: "r" }],
    });
    expect(decide(facts([mail(to("bob@example.com", "ann@example.com"))]), outside, set).kind).toBe("auto_approved");
  });

  it("globs with @: *@rival.com and ceo@*", () => {
    expect(decide(facts([mail(to("x+y@RIVAL.com."))]), rules(`{ glob = "*@rival.com" }`), set).kind).toBe(
      "auto_rejected",
    );
    expect(decide(facts([mail(to("ceo+x@other.org"))]), rules(`{ glob = "ceo@*" }`), set).kind).toBe("auto_rejected");
    expect(decide(facts([mail(to("c.e.o@gmail.com"))]), rules(`{ glob = "ceo@*" }`), set).kind).toBe("auto_rejected");
    expect(decide(facts([mail(to("ceox@other.org"))]), rules(`{ glob = "ceo@*" }`), set).kind).toBe("auto_approved");
  });

  it("inside not the address stays exact: deny `not_in [mine]` fires for mine+x", () => {
    for (const when of [`{ not_in = ["me@example.com"] }`, `{ not = { in = ["me@example.com"] } }`]) {
      const deny = rules(when);
      expect(decide(facts([mail(to("me@example.com"))]), deny, set).kind).toBe("auto_approved");
      expect(decide(facts([mail(to("me+x@example.com"))]), deny, set).kind).toBe("auto_rejected");
    }
  });

  it("allow conditions stay exact: an allow on me@example.com does not allow me+x", () => {
    const allow = policyOf(
      `[[rules]]\nid = "me"\ndecision = "allow"\nop = "email.send_email"\nwhen = { args = { to = { in = ["me@example.com"] } } }\n`,
    );
    expect(decide(facts([mail(to("me@example.com"))]), allow, set).kind).toBe("auto_approved");
    expect(decide(facts([mail(to("me+x@example.com"))]), allow, set).kind).toBe("ask");
    // What an allow excludes widens instead: `not_in [rival]` does not allow rival+x.
    const allowNot = policyOf(
      `[[rules]]\nid = "not-rival"\ndecision = "allow"\nop = "email.send_email"\nwhen = { args = { to = { not_in = ["ceo@rival.com"] } } }\n`,
    );
    expect(decide(facts([mail(to("bob@example.com"))]), allowNot, set).kind).toBe("auto_approved");
    expect(decide(facts([mail(to("ceo+x@rival.com"))]), allowNot, set).kind).toBe("ask");
  });
});

describe("the guard of a deny that may apply", () => {
  it("carries the mailbox comparison into the receipt, and the run refuses every spelling", async () => {
    const deny = rules(`{ in = ["ceo@example.com"] }`);
    const unknownTo = list(str("", "@example.com"), 1);
    const f = facts([mail(unknownTo)]);
    const d = decide(f, deny, set);
    expect(d.kind).toBe("ask");
    expect(d.guards).toEqual([{ op: "email.send_email", args: { to: { not: { mailbox_in: ["ceo@example.com"] } } } }]);
    const now = new Date("2030-01-01T00:00:00Z");
    // As the authority signs it once a person approves.
    const input = {
      requestId: "req_AAAAAAAAAAAAAAAAAAAAAA",
      program: f.program,
      decision: "approved_once" as const,
      policySha256: d.policy.sha256,
      grants: d.grants,
      across: d.across,
      issuer: "https://authority.test",
      approver: "alice",
    };
    const token = await issueReceipt(input, { active: await generateKey(now) }, now);
    const claims = ReceiptClaims.parse(JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8")));
    const grant = { op: "email.send_email", args: claims.grants.find((g) => g.op === "email.send_email")!.args };
    const call = (address: string) => ({
      op: "email.send_email",
      args: { to: [address], subject: "Hi", body: "Hello" },
    });
    for (const spelled of ["ceo@example.com", "CEO+x@example.com", "ceo+@example.com."])
      expect(satisfiesCall(grant, call(spelled), [])).toBe(false);
    expect(satisfiesCall(grant, call("bob@example.com"), [])).toBe(true);
  });
});
