// A policy rule that auto-approves sending drafts to listed recipients, through a whole run (real
// authority on 127.0.0.1, QuickJS, the email plugin, the Gmail-shaped provider): the program shows
// only the draft's id, the decision passes it on the rule's condition carried in the grant, and
// the wrapper checks the recipients it reads from the draft against it before the send.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runHarnessForSuite } from "./harness.js";

const POLICY = `default = "ask"

[[rules]]
id = "drafts-to-bob"
decision = "allow"
op = "email.send_draft"
when = { args = { to = { in = ["bob@example.com"] } } }
reason = "drafts to Bob may go out"
`;

/** Sends a draft someone wrote; the program knows only its id and promises nothing. */
const sendTheirDraft = (id: string) => `import { program } from "countersign";
import { sendDraft } from "trusted/email";

export default program({
  rationale: "Send the draft that is waiting.",
  guarantees: [],
  async main() {
    await sendDraft({ draft_id: ${JSON.stringify(id)} });
  },
});
`;

const h = runHarnessForSuite(() => {
  const policies = mkdtempSync(join(tmpdir(), "countersign-draft-policy-"));
  writeFileSync(join(policies, "policy.toml"), POLICY);
  return { authority: { policies } };
});
const run = (source: string) => h.run({ source });

describe("an allow rule on send_draft's recipients", () => {
  it("auto-approves the send, and the draft to Bob goes out", async () => {
    const id = h.gmail.addDraft({ to: ["bob@example.com"], subject: "Notes", body: "Here they are." });
    const before = h.gmail.sent.length;
    const report = await run(sendTheirDraft(id));
    expect(report).toMatchObject({
      outcome: "executed",
      policy: { decision: "auto_approved", rules: ["drafts-to-bob"] },
      execution: { refused: 0, calls: [{ op: "email.send_draft", status: "done" }] },
    });
    expect(report.approval?.approver).toBeUndefined();
    expect(h.gmail.sent.slice(before).map(({ via, to, subject, body }) => ({ via, to, subject, body }))).toEqual([{ via: "draft", to: ["bob@example.com"], subject: "Notes", body: "Here they are." }]);
  });

  it("a draft written in Gmail's multipart shape (text/plain beside text/html) goes out with its plain-text body", async () => {
    const id = h.gmail.addDraft({ to: ["bob@example.com"], subject: "Rich", body: "Plain words.", html: "<p>Rich <b>words</b>.</p>" });
    const before = h.gmail.sent.length;
    const report = await run(sendTheirDraft(id));
    expect(report).toMatchObject({ outcome: "executed", policy: { decision: "auto_approved" } });
    expect(h.gmail.sent.slice(before).map(({ to, subject, body }) => ({ to, subject, body }))).toEqual([{ to: ["bob@example.com"], subject: "Rich", body: "Plain words." }]);
  });

  it("a draft to someone else: approved by the same rule, refused at the send by the wrapper, nothing sent", async () => {
    const id = h.gmail.addDraft({ to: ["bob@example.com", "mallory@evil.example"], subject: "Hi", body: "Hello." });
    const before = h.gmail.sent.length;
    const report = await run(sendTheirDraft(id));
    expect(report).toMatchObject({
      outcome: "failed",
      policy: { decision: "auto_approved" },
      execution: { refused: 1, calls: [{ op: "email.send_draft", status: "refused", error: { class: "grant_violation", message: expect.stringContaining('argument "to" is outside its grant') } }] },
    });
    expect(h.gmail.sent.length).toBe(before);
    expect(h.gmail.drafts.has(id)).toBe(true);
  });
});
