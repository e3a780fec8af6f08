// Previews at approval time against a real authority on 127.0.0.1 and the local Gmail-shaped
// provider: the approver sees the draft a program would send, fetched anew for every showing with
// the user's credential; the submitter never sees any of it; a preview that fails never blocks
// the decision.
import { createHash } from "node:crypto";
import { rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGmailServer, type GmailServer } from "../../examples/gmail-server/gmail-server.js";
import { canonicalJson } from "../../src/constraint/index.js";
import { PreviewShown } from "../../src/model/index.js";
import { startTestAuthority, type ApproverSession, type TestAuthority } from "./harness.js";

const PROVIDER_TOKEN = "provider-secret-token";
const PREVIEW_TIMEOUT_MS = 3_000; // long enough for a plugin to start on a busy machine

// What the draft says: strings that appear nowhere but in the provider's answer.
const DRAFT = { to: "carol.preview@example.net", subject: "Board minutes 7Q2X", body: "Salary table:\nrow 91873\n" };

let gmail: GmailServer;
let hung: Server; // accepts every request and never answers
let hungHolds = { now: 0, most: 0 }; // the requests it holds, and the most it held at once
let a: TestAuthority;
let alice: ApproverSession;

/** Point the authority's email connection at `url`: connections.toml is read for every showing. */
function connectEmail(url: string): void {
  const tokenFile = join(a.dataDir, "provider.token");
  writeFileSync(tokenFile, `${PROVIDER_TOKEN}\n`);
  writeFileSync(join(a.dataDir, "connections.toml"), `[email]\nbase_url = "${url}"\ntoken_file = "${tokenFile}"\n`);
}

/** A draft on the provider, made through its own API as a mail client would. */
async function createDraft(draft: { to: string; subject: string; body: string }): Promise<string> {
  const raw = Buffer.from(`To: ${draft.to}\r\nSubject: ${draft.subject}\r\n\r\n${draft.body}`).toString("base64url");
  const answer = await fetch(`${gmail.url}/gmail/v1/users/me/drafts`, {
    method: "POST",
    headers: { authorization: `Bearer ${PROVIDER_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ message: { raw } }),
  });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { id: string }).id;
}

/** A program that sends the drafts `ids` (one call site; a loop over constants for several). */
function sendDrafts(ids: string[]): string {
  const call =
    ids.length === 1
      ? `await sendDraft({ draft_id: ${JSON.stringify(ids[0])} });`
      : `for (const id of ${JSON.stringify(ids)}) await sendDraft({ draft_id: id });`;
  return `import { program } from "countersign";
import { sendDraft } from "trusted/email";

export default program({
  rationale: "Send the prepared draft.",
  guarantees: [],
  async main() {
    ${call}
  },
});
`;
}

const submit = async (program: string) => {
  const answer = await a.call("POST", "/v1/requests", { body: { program, source_name: "send-draft.ts" } });
  expect(answer.status).toBe(202);
  return answer;
};
const review = (id: string) => a.call("GET", `/v1/requests/${id}`, { session: alice });
const auditOf = async (id: string) =>
  String((await a.call("GET", "/v1/audit", { session: alice })).body)
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.request_id === id);
const gets = () => gmail.requests.filter((r) => r.startsWith("GET ")).length;

beforeAll(async () => {
  gmail = await startGmailServer({ token: PROVIDER_TOKEN });
  hung = createServer((_, response) => {
    hungHolds.most = Math.max(hungHolds.most, ++hungHolds.now);
    response.on("close", () => void hungHolds.now--);
  });
  await new Promise<void>((resolve) => hung.listen(0, "127.0.0.1", resolve));
  a = await startTestAuthority("sqlite", { previewTimeoutMs: PREVIEW_TIMEOUT_MS });
  alice = await a.login("alice");
});
afterAll(async () => {
  await a?.close();
  await gmail?.close();
  hung?.closeAllConnections();
  await new Promise((resolve) => hung?.close(resolve));
});

describe("previews at approval time (send_draft)", () => {
  it("shows the approver the draft's To, Subject and Body, fetched for every showing, and audits a hash of what was shown", async () => {
    connectEmail(gmail.url);
    const draftId = await createDraft(DRAFT);
    const { body } = await submit(sendDrafts([draftId]));
    const before = gets();

    const first = await review(body.id);
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("no-store");
    expect(first.body.previews).toEqual([
      {
        effect: 0,
        op: "email.send_draft",
        site: expect.objectContaining({ line: expect.any(Number) }),
        args: { draft_id: draftId },
        fields: [
          { label: "To", value: DRAFT.to, multiline: false },
          { label: "Subject", value: DRAFT.subject, multiline: false },
          { label: "Body", value: DRAFT.body, multiline: true },
        ],
      },
    ]);
    for (const shown of first.body.previews) expect(PreviewShown.safeParse(shown).success).toBe(true);
    expect(gets()).toBe(before + 1);
    expect(gmail.sent).toEqual([]); // a preview sends nothing

    // Never cached: the second showing asks the provider again and sees the draft as it is now.
    gmail.drafts.get(draftId)!.message.payload.headers.find((h) => h.name === "Subject")!.value =
      "Board minutes 7Q2X (edited)";
    const second = await review(body.id);
    expect(gets()).toBe(before + 2);
    expect(second.body.previews[0].fields[1]).toEqual({
      label: "Subject",
      value: "Board minutes 7Q2X (edited)",
      multiline: false,
    });

    // One audit entry per showing: the approver, the request, the hash of the canonical JSON shown; never the content.
    const shownEntries = (await auditOf(body.id)).filter((e) => e.type === "preview_shown");
    expect(shownEntries.map((e) => [e.actor, e.details.preview_sha256])).toEqual([
      ["alice", sha256(canonicalJson(first.body.previews))],
      ["alice", sha256(canonicalJson(second.body.previews))],
    ]);
    const audit = String((await a.call("GET", "/v1/audit", { session: alice })).body);
    for (const secret of [DRAFT.subject, "row 91873", DRAFT.to]) expect(audit).not.toContain(secret);
    expect((await a.call("GET", "/v1/audit/verify", { session: alice })).body).toMatchObject({ ok: true });
  });

  it("never returns preview data on any route the submitter can read", async () => {
    connectEmail(gmail.url);
    const draftId = await createDraft(DRAFT);
    const program = sendDrafts([draftId]);
    const bodies: string[] = [];
    const keep = <T extends { body: unknown }>(answer: T): T => (bodies.push(JSON.stringify(answer.body)), answer);

    const submitted = keep(await submit(program));
    const id = submitted.body.id;
    // The approver looks first, so that the previews exist while the submitter reads everything it can.
    const reviewed = (await review(id)).body;
    const shown = JSON.stringify(reviewed);
    for (const secret of [DRAFT.to, DRAFT.subject, "row 91873"]) expect(shown).toContain(secret); // the scan below can fail

    keep(await a.call("GET", `/v1/requests/${id}`));
    keep(await a.call("GET", `/v1/requests/${id}`, { session: alice, token: a.token })); // a token beside a session reads as the submitter
    keep(await a.call("GET", `/v1/requests/${id}/decision?wait=0`));
    keep(await a.call("POST", "/v1/check", { body: { program, source_name: "send-draft.ts" } }));
    expect(
      (
        await a.call("POST", `/v1/requests/${id}/decision`, {
          session: alice,
          body: { decision: "approved_once", shown: reviewed.binding.sha256 },
        })
      ).status,
    ).toBe(200);
    const decided = keep(await a.call("GET", `/v1/requests/${id}/decision?wait=1`));
    expect(decided.body).toMatchObject({ status: "approved", receipt: expect.any(String) });
    const claims = JSON.parse(Buffer.from(decided.body.receipt.split(".")[1], "base64url").toString());
    keep(await a.call("POST", `/v1/receipts/${claims.jti}/redeem`, { body: { exp: claims.exp } }));
    keep(await a.call("GET", `/v1/requests/${id}`));
    const other = keep(await submit(program)).body.id;
    await review(other);
    keep(await a.call("GET", `/v1/requests/${other}`));
    keep(await a.call("POST", `/v1/requests/${other}/withdraw`, { body: {} }));
    // Approver routes refuse the submitter's token outright.
    keep(await a.call("GET", "/v1/requests?limit=500"));
    keep(await a.call("GET", "/v1/audit"));

    expect(bodies).toHaveLength(13);
    for (const text of bodies) {
      for (const secret of [DRAFT.to, DRAFT.subject, "row 91873", "Salary"]) expect(text).not.toContain(secret);
      expect(text).not.toContain("previews");
    }
  });

  it("a draft id the provider does not know shows 'Preview unavailable', and approving is refused: it could bind nothing that was shown", async () => {
    connectEmail(gmail.url);
    const { body } = await submit(sendDrafts(["r404nothere"]));
    const shown = await review(body.id);
    expect(shown.status).toBe(200);
    expect(shown.body.previews).toEqual([
      {
        effect: 0,
        op: "email.send_draft",
        site: expect.any(Object),
        args: { draft_id: "r404nothere" },
        unavailable: "Preview unavailable: email.get_draft: the mail API answered 404",
      },
    ]);
    const refused = await a.call("POST", `/v1/requests/${body.id}/decision`, {
      session: alice,
      body: { decision: "approved_once", shown: shown.body.binding.sha256 },
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error.details.reason).toBe("binding_unreadable");
    expect((await a.call("GET", `/v1/requests/${body.id}/decision`)).body).toMatchObject({ status: "pending" });
    expect((await auditOf(body.id)).map((e) => e.type)).toContain("preview_shown");
  });

  it("a provider that never answers: unavailable after the timeout, and the view answers in bounded time", async () => {
    connectEmail(`http://127.0.0.1:${(hung.address() as AddressInfo).port}`);
    const { body } = await submit(sendDrafts(["r00000001", "r00000002", "r00000003"]));
    hungHolds = { now: 0, most: 0 };
    const shown = await review(body.id);
    expect(shown.status).toBe(200);
    expect(shown.body.previews.map((p: { args: unknown; unavailable: string }) => [p.args, p.unavailable])).toEqual(
      ["r00000001", "r00000002", "r00000003"].map((id) => [
        { draft_id: id },
        `Preview unavailable: no answer within ${PREVIEW_TIMEOUT_MS} ms`,
      ]),
    );
    // The three previews wait side by side, not one after another: the provider held all three at once.
    expect(hungHolds.most).toBe(3);
    expect(
      (
        await a.call("POST", `/v1/requests/${body.id}/decision`, {
          session: alice,
          body: { decision: "rejected", reason: "cannot see it" },
        })
      ).status,
    ).toBe(200);
  });

  it("several constant draft ids: one preview each; a draft id made at run time: unavailable, with why", async () => {
    connectEmail(gmail.url);
    const ids = [await createDraft({ ...DRAFT, subject: "First" }), await createDraft({ ...DRAFT, subject: "Second" })];
    const { body } = await submit(sendDrafts(ids));
    const shown = (await review(body.id)).body.previews;
    expect(
      shown.map((p: { effect: number; args: unknown; fields: { value: string }[] }) => [
        p.effect,
        p.args,
        p.fields[1]!.value,
      ]),
    ).toEqual([
      [0, { draft_id: ids[0] }, "First"],
      [0, { draft_id: ids[1] }, "Second"],
    ]);

    const fresh = await submit(
      `import { program } from "countersign";
import { draftEmail, sendDraft } from "trusted/email";

export default program({
  rationale: "Draft and send.",
  guarantees: [],
  async main() {
    const draft = await draftEmail({ to: ["bob@example.com"], subject: "S", body: "B" });
    if (typeof draft.id !== "string") throw new Error("no id");
    await sendDraft({ draft_id: draft.id });
  },
});
`,
    );
    const unknown = (await review(fresh.body.id)).body.previews;
    expect(unknown).toEqual([
      {
        effect: 1,
        op: "email.send_draft",
        site: expect.any(Object),
        args: {},
        unavailable: "Preview unavailable: the program's value for draft_id is only known when it runs",
      },
    ]);
  });

  it("more possible values than previews fetched at once: unavailable, and nothing is fetched", async () => {
    connectEmail(gmail.url);
    const ids = Array.from({ length: 9 }, (_, i) => `r${String(i).padStart(8, "0")}`);
    const { body } = await submit(sendDrafts(ids));
    const before = gets();
    expect((await review(body.id)).body.previews).toEqual([
      {
        effect: 0,
        op: "email.send_draft",
        site: expect.any(Object),
        args: {},
        unavailable:
          "Preview unavailable: 9 possible values, more than the 8 previews left to fetch (at most 8 a request)",
      },
    ]);
    expect(gets()).toBe(before);
  });

  it("without connections.toml: unavailable with the configuration problem; approving is refused, rejecting works", async () => {
    rmSync(join(a.dataDir, "connections.toml"));
    const { body } = await submit(sendDrafts(["r00000001"]));
    const shown = await review(body.id);
    expect(shown.status).toBe(200);
    expect(shown.body.previews[0].unavailable).toMatch(/^Preview unavailable: .*connections\.toml/);
    expect(
      (
        await a.call("POST", `/v1/requests/${body.id}/decision`, {
          session: alice,
          body: { decision: "approved_once", shown: shown.body.binding.sha256 },
        })
      ).status,
    ).toBe(409);
    expect(
      (
        await a.call("POST", `/v1/requests/${body.id}/decision`, {
          session: alice,
          body: { decision: "rejected", reason: "cannot see it" },
        })
      ).status,
    ).toBe(200);
  });

  it("only pending requests and only the single view fetch previews: a decided request and the listing fetch nothing", async () => {
    connectEmail(gmail.url);
    const draftId = await createDraft(DRAFT);
    const { body } = await submit(sendDrafts([draftId]));
    const before = gets();
    const listed = await a.call("GET", "/v1/requests?status=pending&limit=500", { session: alice });
    expect(listed.body.requests.find((r: { id: string }) => r.id === body.id)).not.toHaveProperty("previews");
    await a.call("POST", `/v1/requests/${body.id}/decision`, {
      session: alice,
      body: { decision: "rejected", reason: "no" },
    });
    expect((await review(body.id)).body.previews).toEqual([]);
    expect(gets()).toBe(before);
    expect((await auditOf(body.id)).map((e) => e.type)).not.toContain("preview_shown");
  });
});

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");
