// A question about what a preview shows, asked on the request page: answered from the previews of
// that showing, fetched (and audited) once for both the page and the answer.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGmailServer, type GmailServer } from "../../../examples/gmail-server/gmail-server.js";
import { startTestAuthority, type ApproverSession, type TestAuthority } from "../harness.js";

const PROVIDER_TOKEN = "provider-secret-token";
let a: TestAuthority;
let alice: ApproverSession;
let gmail: GmailServer;

beforeAll(async () => {
  a = await startTestAuthority("sqlite");
  alice = await a.login("alice");
  gmail = await startGmailServer({ token: PROVIDER_TOKEN });
  const tokenFile = join(a.dataDir, "provider.token");
  writeFileSync(tokenFile, `${PROVIDER_TOKEN}\n`);
  writeFileSync(
    join(a.dataDir, "connections.toml"),
    `[email]\nbase_url = "${gmail.url}"\ntoken_file = "${tokenFile}"\n`,
  );
});
afterAll(async () => {
  await a?.close();
  await gmail?.close();
});

const sendDraft = (id: string) => `import { program } from "countersign";
import { sendDraft } from "trusted/email";
export default program({
  rationale: "Send the prepared draft.",
  guarantees: [],
  async main() {
    await sendDraft({ draft_id: ${JSON.stringify(id)} });
  },
});
`;

const showings = async (id: string): Promise<number> =>
  String((await a.call("GET", "/v1/audit", { session: alice })).body)
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { type: string; request_id?: string })
    .filter((entry) => entry.request_id === id && entry.type === "preview_shown").length;

describe("a question about a draft on the request page", { timeout: 60_000 }, () => {
  it("is answered beside the page with one preview read, not two", async () => {
    const draft = gmail.addDraft({ to: ["carol@example.net"], subject: "Minutes", body: "Hi Carol,\nthe minutes.\n" });
    const submitted = await a.call("POST", "/v1/requests", {
      body: { program: sendDraft(draft), source_name: "send-draft.ts" },
    });
    expect(submitted.status).toBe(202);
    const id = submitted.body.id as string;
    const form = new URLSearchParams({ csrf: alice.csrf, action: "ask", text: "What does the body say?" });
    const asked = await a.call("POST", `/requests/${id}/decide`, {
      token: null,
      headers: { cookie: alice.cookie, "content-type": "application/x-www-form-urlencoded" },
      rawBody: form.toString(),
    });
    expect(asked.status).toBe(200);
    expect(asked.body).toContain('id="answer"');
    expect(await showings(id)).toBe(1);
    const linked = await a.call("GET", `/requests/${id}?q=${encodeURIComponent("What does the body say?")}`, {
      session: alice,
    });
    expect(linked.body).toContain('id="answer"');
    expect(await showings(id)).toBe(2);
    // Over the API (no page beside it), the question fetches its own showing.
    const api = await a.call("POST", `/v1/requests/${id}/question`, {
      session: alice,
      body: { question: "What does the body say?" },
    });
    expect(api.body.answered).toBe(true);
    expect(await showings(id)).toBe(3);
    expect((await a.call("GET", `/v1/requests/${id}`, { session: alice })).body.status).toBe("pending");
  });
});
