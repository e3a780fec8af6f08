// email.send_draft under a receipt that constrains recipients: the trusted wrapper reads the draft
// ([resolve] in send_draft.toml) with the real email plugin against the Gmail-shaped provider,
// checks what it found, and the plugin sends exactly that.
import { describe, expect, it } from "vitest";
import type { DraftContent } from "../../examples/gmail-server/gmail-server.js";
import { admitCall } from "../../src/connector/admission.js";
import { callWithReceipt } from "../../src/connector/call-with-receipt.js";
import type { ValueConstraint } from "../../src/model/constraint.js";
import type { ReceiptCrossOpLimit, ReceiptGrant } from "../../src/model/receipt.js";
import { VerifiedReceipt } from "../../src/receipt/verified-receipt.js";
import { gmailConnector, shippedManifests } from "./fixtures.js";

const set = shippedManifests();
const email = { name: "email", sha256: set.connectors.get("email")!.manifest.sha256 };
const gmail = gmailConnector();

const bobOnly: ValueConstraint = { in: ["bob@example.com"] };

/** A verified receipt with these grants (signing is test/receipt's business): one run. */
function receipt(grants: Omit<ReceiptGrant, "connector">[], across: ReceiptCrossOpLimit[] = []): VerifiedReceipt {
  const claims = {
    iss: "test",
    aud: "countersign-runner",
    sub: "test",
    iat: 0,
    nbf: 0,
    exp: 4_102_444_800,
    jti: "B".repeat(22),
    program: { sha256: "0".repeat(64), entry: "test.ts" },
    decision: "approved_once" as const,
    policy: { sha256: "0".repeat(64) },
    grants: grants.map((g) => ({ ...g, connector: email })),
    across,
  };
  return new VerifiedReceipt("test", claims);
}

const sendDraftTo = (to: ValueConstraint, max: number | null = 1) => ({
  op: "email.send_draft",
  args: { to },
  count: { max },
});
const draft = (content: Partial<DraftContent> = {}) =>
  gmail.server.addDraft({ to: ["bob@example.com"], subject: "Notes", body: "The notes.", ...content });
/** What the provider saw for one draft from `from` on: its reads and sends. */
const traffic = (from: number) => gmail.server.requests.slice(from).filter((r) => r.includes("/drafts"));

describe("send_draft under a recipients grant", () => {
  it("an allowed recipient: the draft is read, checked and sent as read", async () => {
    const id = draft({ subject: "Meeting notes" });
    const before = gmail.server.sent.length;
    const mark = gmail.server.requests.length;
    const out = (await callWithReceipt(
      receipt([sendDraftTo(bobOnly)]),
      set,
      "email.send_draft",
      { draft_id: id },
      gmail.ctx,
    )) as { id: string };
    expect(gmail.server.sent.slice(before)).toEqual([
      { id: out.id, via: "draft", to: ["bob@example.com"], subject: "Meeting notes", body: "The notes." },
    ]);
    expect(traffic(mark)).toEqual([`GET /gmail/v1/users/me/drafts/${id}`, "POST /gmail/v1/users/me/drafts/send"]);
    expect(gmail.server.drafts.has(id)).toBe(false);
  });

  it("a draft whose recipients are outside the grant: grant_violation on `to`, nothing sent, the draft kept", async () => {
    for (const to of [
      ["mallory@evil.example"],
      ["bob@example.com", "mallory@evil.example"],
      ["Bob <bob@example.com>"],
    ]) {
      const id = draft({ to });
      const mark = gmail.server.requests.length;
      const before = gmail.server.sent.length;
      await expect(
        callWithReceipt(receipt([sendDraftTo(bobOnly)]), set, "email.send_draft", { draft_id: id }, gmail.ctx),
      ).rejects.toMatchObject({
        class: "grant_violation",
        details: { reason: "argument_refused", op: "email.send_draft", input: "to" },
      });
      expect(gmail.server.sent.length).toBe(before);
      expect(traffic(mark)).toEqual([`GET /gmail/v1/users/me/drafts/${id}`]);
      expect(gmail.server.drafts.has(id)).toBe(true);
    }
  });

  it("a multipart draft (text/plain beside text/html, Gmail's shape): its plain-text body is checked and sent, never an empty one", async () => {
    const id = draft({ subject: "Both", body: "Plain words.", html: "<p>Rich <b>words</b>.</p>" });
    expect(gmail.server.drafts.get(id)?.message.payload).toMatchObject({
      mimeType: "multipart/alternative",
      body: { size: 0 },
      parts: [{ mimeType: "text/plain" }, { mimeType: "text/html" }],
    });
    const before = gmail.server.sent.length;
    await callWithReceipt(
      receipt([{ op: "email.send_draft", args: { to: bobOnly, body: { eq: "Plain words." } }, count: { max: 1 } }]),
      set,
      "email.send_draft",
      { draft_id: id },
      gmail.ctx,
    );
    expect(gmail.server.sent.slice(before).map(({ to, subject, body }) => ({ to, subject, body }))).toEqual([
      { to: ["bob@example.com"], subject: "Both", body: "Plain words." },
    ]);
  });

  it("a draft whose body is more than one plain text (an attachment): refused clearly at the read, nothing sent, the draft kept", async () => {
    const id = draft({ html: "<p>x</p>", attachments: ["report.pdf"] });
    const before = gmail.server.sent.length;
    const mark = gmail.server.requests.length;
    await expect(
      callWithReceipt(receipt([sendDraftTo(bobOnly)]), set, "email.send_draft", { draft_id: id }, gmail.ctx),
    ).rejects.toMatchObject({
      class: "connector_error",
      message: expect.stringMatching(
        /^email\.send_draft: cannot read what the call would act on \(email\.get_draft: .*the draft has an attachment, which send_draft cannot check or send\), so nothing was done$/,
      ),
      details: { op: "email.send_draft", resolve: "email.get_draft", reason: "unresolved" },
    });
    expect(gmail.server.sent.length).toBe(before);
    expect(traffic(mark)).toEqual([`GET /gmail/v1/users/me/drafts/${id}`]);
    expect(gmail.server.drafts.has(id)).toBe(true);
  });

  it("a draft changed between the check and the send: the checked content is sent, never the changed one", async () => {
    const id = draft({ subject: "Checked", body: "As checked." });
    gmail.server.editAfterNextRead(id, {
      to: ["mallory@evil.example"],
      subject: "Changed",
      body: "Send me your password.",
    });
    const before = gmail.server.sent.length;
    await callWithReceipt(receipt([sendDraftTo(bobOnly)]), set, "email.send_draft", { draft_id: id }, gmail.ctx);
    const sent = gmail.server.sent.slice(before);
    expect(sent.map(({ to, subject, body }) => ({ to, subject, body }))).toEqual([
      { to: ["bob@example.com"], subject: "Checked", body: "As checked." },
    ]);
    expect(gmail.server.drafts.has(id)).toBe(false);
  });

  it("a missing draft: a typed error naming the read that failed, nothing sent", async () => {
    const mark = gmail.server.requests.length;
    const before = gmail.server.sent.length;
    const refused = callWithReceipt(
      receipt([sendDraftTo(bobOnly)]),
      set,
      "email.send_draft",
      { draft_id: "r_gone" },
      gmail.ctx,
    );
    await expect(refused).rejects.toMatchObject({
      class: "external_api_error",
      boundary: "provider",
      message: expect.stringMatching(
        /^email\.send_draft: cannot read what the call would act on \(email\.get_draft: .*404.*\), so nothing was done$/,
      ),
      details: { status: 404, op: "email.send_draft", resolve: "email.get_draft", reason: "unresolved" },
    });
    expect(gmail.server.sent.length).toBe(before);
    expect(traffic(mark)).toEqual(["GET /gmail/v1/users/me/drafts/r_gone"]);
  });

  it("a run's limits count send_draft with send_email: distinct recipients and the total, across both", async () => {
    const distinct = receipt(
      [{ op: "email.send_email", args: {}, count: { max: null } }, sendDraftTo(bobOnly, null)],
      [{ ops: ["email.send_email", "email.send_draft"], distinct: "to" }],
    );
    await callWithReceipt(
      distinct,
      set,
      "email.send_email",
      { to: ["BOB@example.com."], subject: "s", body: "b" },
      gmail.ctx,
    );
    const before = gmail.server.sent.length;
    await expect(
      callWithReceipt(distinct, set, "email.send_draft", { draft_id: draft() }, gmail.ctx),
    ).rejects.toMatchObject({ class: "grant_violation", details: { reason: "not_distinct", input: "to" } });

    const once = receipt(
      [{ op: "email.send_email", args: {}, count: { max: null } }, sendDraftTo(bobOnly, null)],
      [{ ops: ["email.send_email", "email.send_draft"], count: { max: 1 } }],
    );
    await callWithReceipt(once, set, "email.send_draft", { draft_id: draft() }, gmail.ctx);
    await expect(
      callWithReceipt(once, set, "email.send_email", { to: ["bob@example.com"], subject: "s", body: "b" }, gmail.ctx),
    ).rejects.toMatchObject({ details: { reason: "count_exceeded" } });
    expect(gmail.server.sent.slice(before).map((m) => m.via)).toEqual(["draft"]);
  });

  it("the program cannot pass the recipients itself: refused before the check, the draft not read, nothing sent", async () => {
    const id = draft({ to: ["mallory@evil.example"] });
    const before = gmail.server.sent.length;
    const mark = gmail.server.requests.length;
    const call = { draft_id: id, to: ["bob@example.com"], subject: "s", body: "b" };
    await expect(
      callWithReceipt(receipt([sendDraftTo(bobOnly)]), set, "email.send_draft", call, gmail.ctx),
    ).rejects.toMatchObject({ class: "connector_error", details: { input: "to" } });
    expect(gmail.server.sent.length).toBe(before);
    expect(traffic(mark)).toEqual([]);
  });

  it("without the wrapper's read, a grant on `to` refuses the call (admitCall given no resolved values)", () => {
    expect(() => admitCall(receipt([sendDraftTo(bobOnly)]), set, "email.send_draft", { draft_id: "r1" })).toThrow(
      expect.objectContaining({
        class: "grant_violation",
        details: expect.objectContaining({ reason: "missing_argument", input: "to" }),
      }),
    );
  });

  it("a receipt without a send_draft grant: refused, and the draft is not even read", async () => {
    const mark = gmail.server.requests.length;
    await expect(
      callWithReceipt(
        receipt([{ op: "email.send_email", args: {}, count: { max: 1 } }]),
        set,
        "email.send_draft",
        { draft_id: draft() },
        gmail.ctx,
      ),
    ).rejects.toMatchObject({
      class: "grant_violation",
      details: { reason: "no_grant" },
    });
    expect(traffic(mark)).toEqual([]);
  });
});
