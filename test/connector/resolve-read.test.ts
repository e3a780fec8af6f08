// The trusted wrapper's own read before email.send_draft ([resolve]: get_draft) is an effect made
// with the user's credential and an argument the program chose (the draft id). It must be made
// only for a call the receipt admits in every respect but the values it reads: a draft id outside
// the grant, a call past its count or an expired receipt reads nothing, whatever the draft holds.
import { describe, expect, it } from "vitest";
import { callAgentAction } from "../../src/connector/call-agent-action.js";
import { callWithReceipt } from "../../src/connector/call-with-receipt.js";
import type { ValueConstraint } from "../../src/model/constraint.js";
import type { ReceiptCrossOpLimit, ReceiptGrant } from "../../src/model/receipt.js";
import { VerifiedReceipt } from "../../src/receipt/verified-receipt.js";
import { SHIP_DRAFT, withAgent } from "../support/agent-manifests.js";
import { gmailConnector, shippedManifests } from "./fixtures.js";

const set = shippedManifests();
const email = { name: "email", sha256: set.connectors.get("email")!.manifest.sha256 };
const gmail = gmailConnector();

/** A verified receipt with these grants, expiring at `exp` (seconds since the epoch): one run. */
function receipt(
  grants: Omit<ReceiptGrant, "connector">[],
  across: ReceiptCrossOpLimit[] = [],
  exp = 4_102_444_800,
  agentManifests?: string,
): VerifiedReceipt {
  const claims = {
    ...(agentManifests === undefined ? {} : { agent_manifests: { sha256: agentManifests } }),
    iss: "test",
    aud: "countersign-runner",
    sub: "test",
    iat: 0,
    nbf: 0,
    exp,
    jti: "C".repeat(22),
    program: { sha256: "0".repeat(64), entry: "test.ts" },
    decision: "approved_once" as const,
    policy: { sha256: "0".repeat(64) },
    grants: grants.map((g) => ({ ...g, connector: email })),
    across,
  };
  return new VerifiedReceipt("test", claims);
}

const bobOnly: ValueConstraint = { in: ["bob@example.com"] };
const draft = (to = ["bob@example.com"]) => gmail.server.addDraft({ to, subject: "Notes", body: "The notes." });
/** The provider's draft traffic from `from` on: reads and sends. */
const traffic = (from: number) => gmail.server.requests.slice(from).filter((r) => r.includes("/drafts"));

describe("the wrapper's read before send_draft reads only what the grant covers", () => {
  it("a draft id outside the grant: refused on draft_id, and that draft is never read", async () => {
    const granted = draft();
    const other = draft();
    const grant = { op: "email.send_draft", args: { draft_id: { in: [granted] }, to: bobOnly }, count: { max: null } };
    const mark = gmail.server.requests.length;
    await expect(
      callWithReceipt(receipt([grant]), set, "email.send_draft", { draft_id: other }, gmail.ctx),
    ).rejects.toMatchObject({
      class: "grant_violation",
      details: { reason: "argument_refused", input: "draft_id" },
    });
    expect(traffic(mark)).toEqual([]);
    // The granted one is read and sent as before.
    await callWithReceipt(receipt([grant]), set, "email.send_draft", { draft_id: granted }, gmail.ctx);
    expect(traffic(mark)).toEqual([`GET /gmail/v1/users/me/drafts/${granted}`, "POST /gmail/v1/users/me/drafts/send"]);
  });

  it("a call past the grant's count, or a limit across grants: refused, the next draft never read", async () => {
    const once = receipt([{ op: "email.send_draft", args: { to: bobOnly }, count: { max: 1 } }]);
    await callWithReceipt(once, set, "email.send_draft", { draft_id: draft() }, gmail.ctx);
    const mark = gmail.server.requests.length;
    await expect(
      callWithReceipt(once, set, "email.send_draft", { draft_id: draft() }, gmail.ctx),
    ).rejects.toMatchObject({ details: { reason: "count_exceeded" } });
    expect(traffic(mark)).toEqual([]);

    const shared = receipt(
      [
        { op: "email.send_email", args: {}, count: { max: null } },
        { op: "email.send_draft", args: { to: bobOnly }, count: { max: null } },
      ],
      [{ ops: ["email.send_email", "email.send_draft"], count: { max: 1 } }],
    );
    await callWithReceipt(
      shared,
      set,
      "email.send_email",
      { to: ["bob@example.com"], subject: "s", body: "b" },
      gmail.ctx,
    );
    const after = gmail.server.requests.length;
    await expect(
      callWithReceipt(shared, set, "email.send_draft", { draft_id: draft() }, gmail.ctx),
    ).rejects.toMatchObject({ details: { reason: "count_exceeded" } });
    expect(traffic(after)).toEqual([]);
  });

  it("an expired receipt: refused, nothing read", async () => {
    const expired = receipt([{ op: "email.send_draft", args: { to: bobOnly }, count: { max: null } }], [], 1_000);
    const mark = gmail.server.requests.length;
    await expect(
      callWithReceipt(expired, set, "email.send_draft", { draft_id: draft() }, gmail.ctx),
    ).rejects.toMatchObject({ class: "receipt_invalid", details: { reason: "expired" } });
    expect(traffic(mark)).toEqual([]);
  });

  it("a grant that holds the read values distinct still reads (the values are checked once read)", async () => {
    const distinct = receipt([{ op: "email.send_draft", args: { to: bobOnly }, count: { max: null }, distinct: "to" }]);
    await callWithReceipt(distinct, set, "email.send_draft", { draft_id: draft() }, gmail.ctx);
    const mark = gmail.server.requests.length;
    const again = draft();
    await expect(
      callWithReceipt(distinct, set, "email.send_draft", { draft_id: again }, gmail.ctx),
    ).rejects.toMatchObject({ details: { reason: "not_distinct", input: "to" } });
    expect(traffic(mark)).toEqual([`GET /gmail/v1/users/me/drafts/${again}`]); // read, checked, not sent
  });
});

describe("an agent action's step that sends a draft", () => {
  it("is a call like any: a draft id outside the grant is refused before the draft is read", async () => {
    const agentSet = withAgent([{ name: "ship_draft.toml", text: SHIP_DRAFT }], undefined, set);
    const granted = draft();
    const other = draft(["mallory@evil.example"]);
    const verified = receipt(
      [{ op: "email.send_draft", args: { draft_id: { in: [granted] }, to: bobOnly }, count: { max: null } }],
      [],
      undefined,
      agentSet.agent!.sha256,
    );
    const mark = gmail.server.requests.length;
    await expect(
      callAgentAction(verified, agentSet, "agent.ship_draft", { draft: other }, gmail.ctx),
    ).rejects.toMatchObject({
      class: "grant_violation",
      details: { reason: "argument_refused", input: "draft_id" },
    });
    expect(traffic(mark)).toEqual([]);
    await callAgentAction(verified, agentSet, "agent.ship_draft", { draft: granted }, gmail.ctx);
    expect(traffic(mark)).toEqual([`GET /gmail/v1/users/me/drafts/${granted}`, "POST /gmail/v1/users/me/drafts/send"]);
  });
});
