// send_draft through a whole run (real authority on 127.0.0.1, QuickJS, the email plugin, the
// Gmail-shaped provider): the recipients guarantee holds for drafts too, checked at run time on
// what the draft really contains.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/model/paths.js";
import { runHarnessForSuite } from "./harness.js";

/** Sends a draft a person wrote (the program only knows its id), promising mail only to Bob. */
const sendTheirDraft = (id: string) => `import { program } from "countersign";
import { sendDraft } from "trusted/email";
import { recipientsOnly } from "trusted/email/contracts";

export default program({
  rationale: "Send the draft that is waiting.",
  guarantees: [recipientsOnly(["bob@example.com"])],
  async main() {
    try {
      await sendDraft({ draft_id: ${JSON.stringify(id)} });
      console.log("sent");
    } catch (e) {
      console.log("refused: " + String((e as { class: string }).class));
    }
  },
});
`;

/** Mails Bob, then drafts to Bob and sends the draft, promising no recipient twice. */
const twiceToBob = `import { program } from "countersign";
import { draftEmail, sendDraft, sendEmail } from "trusted/email";
import { uniqueRecipients } from "trusted/email/contracts";

export default program({
  rationale: "Mail Bob, then send him a draft too.",
  guarantees: [uniqueRecipients()],
  async main() {
    await sendEmail({ to: ["bob@example.com"], subject: "First", body: "One." });
    const draft = await draftEmail({ to: ["bob@example.com"], subject: "Second", body: "Two." });
    if (typeof draft.id !== "string") throw new Error("no draft id");
    await sendDraft({ draft_id: draft.id });
  },
});
`;

const h = runHarnessForSuite();

/** Run `source` and approve it once as the person when it asks. */
async function runApproved(source: string) {
  const [report] = await Promise.all([h.run({ source }), h.decideWhenPending()]);
  return report;
}

describe("send_draft in a run under a recipients guarantee", () => {
  it("examples/draft-and-send.ts: the guarantee is enforced at run time and the draft to Bob is sent", async () => {
    const before = h.gmail.sent.length;
    const report = await runApproved(readFileSync(join(packageRoot, "examples", "draft-and-send.ts"), "utf8"));
    expect(report).toMatchObject({
      outcome: "executed",
      check: { ok: true, guarantees: 2 },
      execution: {
        outcome: "returned",
        refused: 0,
        calls: [
          { op: "email.draft_email", status: "done" },
          { op: "email.send_draft", status: "done" },
        ],
      },
    });
    expect(report.check!.enforced).toBeGreaterThanOrEqual(1);
    expect(h.gmail.sent.slice(before).map(({ via, to, subject }) => ({ via, to, subject }))).toEqual([
      { via: "draft", to: ["bob@example.com"], subject: "Meeting notes" },
    ]);
  });

  it("a draft whose recipients are outside: refused inside the sandbox, reported, nothing sent", async () => {
    const id = h.gmail.addDraft({ to: ["mallory@evil.example"], subject: "Hi", body: "Hello." });
    const before = h.gmail.sent.length;
    const report = await runApproved(sendTheirDraft(id));
    expect(report).toMatchObject({
      outcome: "failed",
      check: { guarantees: 1, enforced: 1 },
      execution: {
        outcome: "returned",
        refused: 1,
        calls: [
          {
            op: "email.send_draft",
            status: "refused",
            error: { class: "grant_violation", message: expect.stringContaining('argument "to" is outside its grant') },
          },
        ],
        logs: [{ text: "refused: grant_violation" }],
      },
    });
    expect(h.gmail.sent.length).toBe(before);
    expect(h.gmail.drafts.has(id)).toBe(true);
  });

  it("distinct recipients across send_email and send_draft: the draft to Bob, mailed already, is refused", async () => {
    const before = h.gmail.sent.length;
    const report = await runApproved(twiceToBob);
    expect(report.execution).toMatchObject({
      refused: 1,
      calls: [
        { op: "email.send_email", status: "done" },
        { op: "email.draft_email", status: "done" },
        {
          op: "email.send_draft",
          status: "refused",
          error: { class: "grant_violation", message: expect.stringContaining(`repeats "bob@example.com"`) },
        },
      ],
    });
    expect(h.gmail.sent.slice(before).map((m) => m.subject)).toEqual(["First"]);
  });
});
