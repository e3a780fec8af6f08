// An approval binds what the person saw: approving a send_draft binds the draft's recipients,
// subject and body as the page showed them, against a real authority on 127.0.0.1 and the
// Gmail-shaped provider; the run's wrapper then refuses any difference, and a remembered rule
// holds the content, never only the draft id.
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGmailServer, type DraftContent, type GmailServer } from "../../examples/gmail-server/gmail-server.js";
import { connectorContext, loadManifests } from "../../src/config/index.js";
import { callWithReceipt, createPluginPool, type PluginPool } from "../../src/connector/index.js";
import { packageRoot } from "../../src/model/paths.js";
import { importJwks, verifyReceipt } from "../../src/receipt/index.js";
import { openStore } from "../../src/store/index.js";
import { startTestAuthority, warmAnalysis, type ApproverSession, type TestAuthority } from "./harness.js";

const PROVIDER_TOKEN = "provider-secret-token";
const DRAFT: DraftContent = { to: ["carol@example.net"], subject: "Board minutes", body: "Minutes:\nall agreed.\n" };
const set = loadManifests(join(packageRoot, "manifests"));

let gmail: GmailServer;
let a: TestAuthority;
let alice: ApproverSession;
let pool: PluginPool;

beforeAll(async () => {
  gmail = await startGmailServer({ token: PROVIDER_TOKEN });
  a = await startTestAuthority("sqlite", { previewTimeoutMs: 4_000 });
  alice = await a.login("alice");
  pool = createPluginPool();
  const tokenFile = join(a.dataDir, "provider.token");
  writeFileSync(tokenFile, `${PROVIDER_TOKEN}\n`);
  writeFileSync(
    join(a.dataDir, "connections.toml"),
    `[email]\nbase_url = "${gmail.url}"\ntoken_file = "${tokenFile}"\n`,
  );
  await warmAnalysis(a);
});
afterAll(async () => {
  await pool?.close();
  await a?.close();
  await gmail?.close();
});

/** A program sending draft `id`; `note` makes programs that differ only in their text. */
const sendDraftProgram = (id: string, note = "") => `import { program } from "countersign";
import { sendDraft } from "trusted/email";

export default program({
  rationale: "Send the prepared draft.${note}",
  guarantees: [],
  async main() {
    await sendDraft({ draft_id: ${JSON.stringify(id)} });
  },
});
`;

/** Someone edits draft `id` in the mailbox: it now says `content`. */
function editDraft(id: string, content: DraftContent): void {
  const other = gmail.addDraft(content);
  gmail.drafts.set(id, { ...gmail.drafts.get(id)!, message: gmail.drafts.get(other)!.message });
  gmail.drafts.delete(other);
}

async function submit(program: string): Promise<string> {
  const answer = await a.call("POST", "/v1/requests", { body: { program, source_name: "send-draft.ts" } });
  expect([200, 202]).toContain(answer.status); // 200: decided at once (a remembered rule)
  return answer.body.id;
}
const page = async (id: string) => (await a.call("GET", `/v1/requests/${id}/page`, { session: alice })).body;
const decide = (id: string, body: Record<string, unknown>) =>
  a.call("POST", `/v1/requests/${id}/decision`, { session: alice, body });

/** The receipt of an approved request, verified as a runner would, and one send of `draftId` under it. */
async function run(id: string, program: string, draftId: string): Promise<unknown> {
  const decided = await a.call("GET", `/v1/requests/${id}/decision?wait=1`);
  expect(decided.body).toMatchObject({ status: "approved", receipt: expect.any(String) });
  const jwks = importJwks((await a.call("GET", "/.well-known/jwks.json")).body);
  const verified = await verifyReceipt(decided.body.receipt, {
    jwks,
    issuer: "countersign-local",
    programBytes: new TextEncoder().encode(program),
  });
  return callWithReceipt(
    verified,
    set,
    "email.send_draft",
    { draft_id: draftId },
    connectorContext(a.dataDir, { plugins: pool }),
  );
}

/** The rules remembered by request `id`, as the authority's store keeps them. */
async function rulesOf(id: string) {
  const store = await openStore({ dataDir: a.dataDir, database: a.database });
  try {
    return (await store.listRememberedRules()).filter((r) => r.request_id === id) as unknown as {
      rule: { when: { args: unknown } };
    }[];
  } finally {
    await store.close();
  }
}

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

describe("approving a send_draft binds the draft as shown", () => {
  it("the page says what approving binds: To, Subject, the body by its sha256, and that a change refuses the send", async () => {
    const draftId = gmail.addDraft(DRAFT);
    const shown = await page(await submit(sendDraftProgram(draftId)));
    expect(shown.binding).toEqual({
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      calls: [
        {
          op: "email.send_draft",
          line: 8,
          bound: true,
          text: `Approving sends exactly this (email.send_draft at line 8): To carol@example.net, Subject Board minutes, Body as shown (sha256 ${sha256(DRAFT.body)}). If it changes before the send, the send is refused and nothing is sent.`,
        },
      ],
      runtime: [],
    });
  });

  it("unchanged draft: approved once, sent exactly as shown", async () => {
    const draftId = gmail.addDraft(DRAFT);
    const program = sendDraftProgram(draftId);
    const id = await submit(program);
    expect((await decide(id, { decision: "approved_once", shown: (await page(id)).binding.sha256 })).status).toBe(200);
    const before = gmail.sent.length;
    await run(id, program, draftId);
    expect(gmail.sent.slice(before).map(({ to, subject, body }) => ({ to, subject, body }))).toEqual([
      { to: DRAFT.to, subject: DRAFT.subject, body: DRAFT.body },
    ]);
  });

  for (const [what, change, input] of [
    ["a recipient", { to: ["mallory@evil.example"] }, "to"],
    ["an added recipient", { to: [...DRAFT.to, "mallory@evil.example"] }, "to"],
    ["the subject", { subject: "Board minutes (final)" }, "subject"],
    ["the body", { body: "Minutes:\nall agreed. Wire 10k to IBAN X.\n" }, "body"],
    ["one character of the body", { body: DRAFT.body.replace("all", "All") }, "body"],
  ] as [string, Partial<DraftContent>, string][]) {
    it(`approved once, then ${what} changed in the draft: the send is refused on \`${input}\` and nothing is sent`, async () => {
      const draftId = gmail.addDraft(DRAFT);
      const program = sendDraftProgram(draftId);
      const id = await submit(program);
      expect((await decide(id, { decision: "approved_once", shown: (await page(id)).binding.sha256 })).status).toBe(
        200,
      );
      editDraft(draftId, { ...DRAFT, ...change });
      const before = gmail.sent.length;
      await expect(run(id, program, draftId)).rejects.toMatchObject({
        class: "grant_violation",
        details: { reason: "argument_refused", op: "email.send_draft", input },
      });
      expect(gmail.sent.length).toBe(before);
      expect(gmail.drafts.has(draftId)).toBe(true);
    });
  }

  it("the draft changed after the page was shown: the approval is refused, the request still waits, the page shows the new content", async () => {
    const draftId = gmail.addDraft(DRAFT);
    const id = await submit(sendDraftProgram(draftId));
    const old = (await page(id)).binding;
    editDraft(draftId, { ...DRAFT, to: ["mallory@evil.example"] });
    for (const decision of ["approved_once", "approved_remember"]) {
      const refused = await decide(id, { decision, shown: old.sha256 });
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({
        class: "approval_denied",
        message: expect.stringContaining("the draft changed since it was shown: look again"),
        details: { reason: "binding_changed" },
      });
    }
    const fresh = await page(id);
    expect(fresh.status).toBe("pending");
    expect(fresh.binding.sha256).not.toBe(old.sha256);
    expect(fresh.binding.calls[0].text).toContain("To mallory@evil.example");
    expect((await rulesOf(id)).length).toBe(0);
  });

  it("the read at approval is an effect too: a policy that no longer allows reading the draft refuses the approval and the provider sees no read", async () => {
    const draftId = gmail.addDraft(DRAFT);
    const id = await submit(sendDraftProgram(draftId));
    const shown = (await page(id)).binding;
    const file = join(a.dataDir, "policies", "default.toml");
    const policy = readFileSync(file, "utf8");
    try {
      writeFileSync(
        file,
        `${policy}\n[[rules]]\nid = "email.no-draft-reads"\ndecision = "deny"\nop = "email.get_draft"\nreason = "drafts stay unread"\n`,
      );
      expect((await a.call("POST", "/v1/reload", { session: alice, body: {} })).body).toMatchObject({ ok: true });
      const reads = gmail.requests.length;
      const refused = await decide(id, { decision: "approved_once", shown: shown.sha256 });
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({
        class: "approval_denied",
        message: expect.stringContaining('rule "email.no-draft-reads" denies it'),
        details: { reason: "binding_unreadable" },
      });
      expect(gmail.requests.slice(reads)).toEqual([]);
    } finally {
      writeFileSync(file, policy);
      expect((await a.call("POST", "/v1/reload", { session: alice, body: {} })).body).toMatchObject({ ok: true });
    }
    expect((await decide(id, { decision: "rejected", reason: "not now" })).status).toBe(200);
  });

  it("an approval that does not say what it was shown is refused for a request that sends a draft", async () => {
    const draftId = gmail.addDraft(DRAFT);
    const id = await submit(sendDraftProgram(draftId));
    await page(id);
    const refused = await decide(id, { decision: "approved_once" });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ class: "approval_denied", details: { reason: "binding_missing" } });
  });

  it("a draft that cannot be read: the page says an approval cannot bind it, and approving is refused", async () => {
    const id = await submit(sendDraftProgram("r404nothere"));
    const shown = await page(id);
    expect(shown.binding.calls).toEqual([
      expect.objectContaining({
        bound: false,
        text: expect.stringContaining("could not be shown, so an approval cannot bind it: approving is refused"),
      }),
    ]);
    const refused = await decide(id, { decision: "approved_once", shown: shown.binding.sha256 });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ class: "approval_denied", details: { reason: "binding_unreadable" } });
    expect((await decide(id, { decision: "rejected", reason: "cannot see it" })).status).toBe(200);
  });

  it("a draft made when the program runs: nothing to bind, the page says so, approving once works", async () => {
    const id = await submit(`import { program } from "countersign";
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
`);
    const shown = await page(id);
    expect(shown.binding).toMatchObject({
      calls: [],
      runtime: [
        {
          op: "email.send_draft",
          line: 10,
          text: expect.stringContaining("only known when the program runs: approving binds no content"),
        },
      ],
    });
    expect((await decide(id, { decision: "approved_once", shown: shown.binding.sha256 })).status).toBe(200);
  });

  it("approve and remember: the rule holds the recipients, subject and body shown; a later program whose draft changed is refused at the send", async () => {
    const draftId = gmail.addDraft(DRAFT);
    const program = sendDraftProgram(draftId);
    const id = await submit(program);
    const shown = await page(id);
    expect(shown.remember.rules[0].text).toContain("to, subject, body of email.send_draft is as shown");
    expect(
      (
        await decide(id, {
          decision: "approved_remember",
          scope: "everyone",
          lifetime: "hour",
          shown: shown.binding.sha256,
        })
      ).status,
    ).toBe(200);
    const rules = await rulesOf(id);
    expect(rules).toHaveLength(1);
    expect(rules[0]!.rule.when.args).toEqual({
      draft_id: { in: [draftId] },
      to: { all: [{ type: ["array"] }, { min_length: 1 }, { max_length: 1 }, { elements: { in: DRAFT.to } }] },
      subject: { sha256: [sha256(DRAFT.subject)] },
      body: { sha256: [sha256(DRAFT.body)] },
    });

    // Another program sending another draft is not approved by the rule: it asks.
    const otherDraft = gmail.addDraft({ to: ["dave@example.org"], subject: "Other", body: "Other body." });
    const other = await a.call("GET", `/v1/requests/${await submit(sendDraftProgram(otherDraft, " Again."))}/decision`);
    expect(other.body.status).toBe("pending");

    // A later program on the same draft id passes the rule, and its receipt holds the content shown:
    // the draft, changed since, is refused at the send.
    editDraft(draftId, { ...DRAFT, body: "Changed after approval." });
    const later = sendDraftProgram(draftId, " Later.");
    const laterId = await submit(later);
    expect((await a.call("GET", `/v1/requests/${laterId}/decision`)).body.status).toBe("approved");
    const before = gmail.sent.length;
    await expect(run(laterId, later, draftId)).rejects.toMatchObject({
      class: "grant_violation",
      details: { reason: "argument_refused", input: "body" },
    });
    expect(gmail.sent.length).toBe(before);
  });

  it("the browser page shows what approving binds and its approve form posts the digest; a stale page is refused with the new content shown", async () => {
    const draftId = gmail.addDraft(DRAFT);
    const program = sendDraftProgram(draftId);
    const id = await submit(program);
    const html = String((await a.call("GET", `/requests/${id}`, { session: alice, token: null })).body);
    expect(html).toContain("What approving binds");
    expect(html).toContain(`Body as shown (sha256 ${sha256(DRAFT.body)})`);
    const shown = [...html.matchAll(/name="shown" value="([0-9a-f]{64})"/g)].map((m) => m[1]);
    expect(shown.length).toBe(2); // approve once, approve and remember
    const post = (form: Record<string, string>) =>
      a.call("POST", `/requests/${id}/decide`, {
        session: alice,
        token: null,
        rawBody: new URLSearchParams({ csrf: alice.csrf, ...form }).toString(),
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });

    editDraft(draftId, { ...DRAFT, subject: "Board minutes (changed)" });
    const stale = await post({ action: "approve_once", shown: shown[0]! });
    expect(stale.status).toBe(409);
    expect(String(stale.body)).toContain("the draft changed since it was shown: look again");
    expect(String(stale.body)).toContain("Subject Board minutes (changed)");
    const fresh = String(stale.body).match(/name="shown" value="([0-9a-f]{64})"/)![1]!;
    expect((await post({ action: "approve_once", shown: fresh })).status).toBe(303);
    const before = gmail.sent.length;
    await run(id, program, draftId);
    expect(gmail.sent.slice(before).map((m) => m.subject)).toEqual(["Board minutes (changed)"]);
  });
});
