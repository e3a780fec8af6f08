// Resolved content: sendDraft names only a draft id; the person approves after seeing the draft
// (recipient, subject, body), then the attacker, who can write to the mailbox, edits the draft
// before the run sends it. The provider must send nothing, or exactly what the person saw.
// And a one-shot approval must not carry a second run.
import { describe, expect, it } from "vitest";
import { mailbox, program, SLOW, useWorld } from "./world.js";

const w = useWorld(); // the shipped policy: send_draft asks

const SHOWN = { to: ["bob@example.com"], subject: "Lunch", body: "At noon." };
const sendDraft = (id: string) =>
  program(`    await sendDraft({ draft_id: ${JSON.stringify(id)} });`, {
    imports: `import { sendDraft } from "trusted/email";`,
  });

/** Replace draft `id`'s content in the mailbox, as the attacker would. */
function edit(id: string, content: { to: string[]; subject: string; body: string }): void {
  const scratch = w.gmail.addDraft(content);
  w.gmail.drafts.set(id, { id, message: w.gmail.drafts.get(scratch)!.message });
  w.gmail.drafts.delete(scratch);
}

type Content = { to: string[]; subject: string; body: string };
/** When the attacker edits: after the person saw the draft and before they approve, or as the approved run reads it to send. */
type Moment = "before_approval" | "at_send";

/**
 * Start the run, let the person open the request and approve (once by default) what the page
 * showed, with the draft edited at `moment`; the run's output and what reached the provider. An
 * approval the authority refuses (the draft changed since it was shown) is followed by the
 * person rejecting the request, so that the run ends.
 */
async function approveThenEdit(
  id: string,
  edited: Content,
  decision: Record<string, string> = { decision: "approved_once" },
  moment: Moment = "at_send",
) {
  const sentBefore = w.gmail.sent.length;
  const tapBefore = w.mail.recipients().length;
  const running = w.start(["run", "-"], { stdin: sendDraft(id) });
  const request = await w.reviewed(running);
  expect(request, running.stderr()).not.toBeNull();
  const session = await w.login();
  const pageResponse = await fetch(`${w.serveUrl}/v1/requests/${request}/page`, {
    headers: { cookie: session.cookie },
  });
  const page = (await pageResponse.json()) as { binding?: { sha256?: string } };
  await (await fetch(`${w.serveUrl}/requests/${request}`, { headers: { cookie: session.cookie } })).text();
  const decide = (body: Record<string, unknown>) =>
    fetch(`${w.serveUrl}/v1/requests/${request}/decision`, {
      method: "POST",
      headers: {
        cookie: session.cookie,
        "x-csrf-token": session.csrf,
        "content-type": "application/json",
        origin: w.serveUrl,
      },
      body: JSON.stringify(body),
    });
  if (moment === "before_approval") edit(id, edited);
  let approved = false;
  let struck = moment === "before_approval";
  // Every read of the draft after the approval is the run's own: the attacker edits just before it.
  w.mail.beforeForward((method, url) => {
    if (!approved || method !== "GET" || !url.includes(`/drafts/${id}`)) return;
    edit(id, edited);
    struck = true;
  });
  try {
    const decided = await decide({ ...decision, shown: page.binding?.sha256 });
    const said = await decided.text();
    if (decided.status === 200) approved = true;
    else {
      expect(moment, said).toBe("before_approval");
      expect(JSON.parse(said)).toMatchObject({ error: { class: "approval_denied" } });
      expect((await decide({ decision: "rejected", reason: "the draft changed" })).status).toBe(200);
    }
    const r = await running.done;
    expect(struck, "the attacker's edit never happened").toBe(true);
    return {
      r,
      page: JSON.stringify(page),
      approved,
      sent: w.gmail.sent.slice(sentBefore),
      recipients: w.mail.recipients().slice(tapBefore),
    };
  } finally {
    w.mail.beforeForward(undefined);
  }
}

const asShown = (m: { to: string[]; subject: string; body: string }) =>
  JSON.stringify(m.to) === JSON.stringify(SHOWN.to) && m.subject === SHOWN.subject && m.body === SHOWN.body;

for (const moment of ["before_approval", "at_send"] as const) {
  describe(`a draft edited after the person saw it (${moment.replace("_", " ")})`, () => {
    it(
      "a new recipient: nothing reaches the CEO; whatever is sent is what was shown",
      async () => {
        const id = w.gmail.addDraft(SHOWN);
        const { r, page, sent, recipients } = await approveThenEdit(
          id,
          { to: ["ceo@example.com"], subject: "Wire", body: "Send the money." },
          undefined,
          moment,
        );
        expect(page).toContain("bob@example.com"); // the person saw Bob's draft
        const said = `${r.stdout}${r.stderr}`;
        expect(
          recipients.filter((x) => mailbox(x) !== "bob@example.com"),
          said,
        ).toEqual([]);
        expect(
          sent.filter((m) => !asShown(m)),
          said,
        ).toEqual([]);
      },
      SLOW,
    );

    it(
      "the same recipient, another subject and body: nothing but what was shown is sent",
      async () => {
        const id = w.gmail.addDraft(SHOWN);
        const { r, sent } = await approveThenEdit(
          id,
          { to: ["bob@example.com"], subject: "Urgent: new bank details", body: "Pay to IBAN XX00 EVIL." },
          undefined,
          moment,
        );
        expect(
          sent.filter((m) => !asShown(m)),
          `${r.stdout}${r.stderr}`,
        ).toEqual([]);
      },
      SLOW,
    );

    it(
      "an added recipient beside the shown one: nothing reaches them",
      async () => {
        const id = w.gmail.addDraft(SHOWN);
        const { r, recipients } = await approveThenEdit(
          id,
          { ...SHOWN, to: ["bob@example.com", "mallory@evil.example"] },
          undefined,
          moment,
        );
        expect(
          recipients.filter((x) => mailbox(x) !== "bob@example.com"),
          `${r.stdout}${r.stderr}`,
        ).toEqual([]);
      },
      SLOW,
    );
  });
}

describe("a draft left as the person saw it", () => {
  it(
    "is sent, exactly as shown (the control)",
    async () => {
      const id = w.gmail.addDraft(SHOWN);
      const { r, approved, sent } = await approveThenEdit(id, SHOWN);
      expect(approved).toBe(true);
      expect(
        sent.map((m) => asShown(m)),
        `${r.stdout}${r.stderr}`,
      ).toEqual([true]);
    },
    SLOW,
  );
});

describe("a one-shot approval", () => {
  it(
    "does not carry a second run of the same program",
    async () => {
      const id = w.gmail.addDraft(SHOWN);
      await approveThenEdit(id, SHOWN);
      // The same draft again (the provider keeps no sent draft: make it anew under the same id).
      w.gmail.drafts.set(id, { id, message: w.gmail.drafts.get(w.gmail.addDraft(SHOWN))!.message });
      const before = w.gmail.sent.length;
      const again = await w.run(sendDraft(id), { args: ["--timeout", "2"] });
      expect(w.gmail.sent.slice(before), `${again.stdout}${again.stderr}`).toEqual([]);
    },
    SLOW,
  );
});

describe("an approval remembered for a draft the person saw", () => {
  it(
    "does not carry a later run after the draft was edited to another recipient",
    async () => {
      const id = w.gmail.addDraft(SHOWN);
      const first = await approveThenEdit(id, SHOWN, { decision: "approved_remember" });
      expect(
        first.sent.filter((m) => !asShown(m)),
        `${first.r.stdout}${first.r.stderr}`,
      ).toEqual([]);
      // The attacker rewrites the draft (made anew under the same id: the provider drops a sent one).
      w.gmail.drafts.set(id, {
        id,
        message: w.gmail.drafts.get(
          w.gmail.addDraft({ to: ["ceo@example.com"], subject: "Wire", body: "Send the money." }),
        )!.message,
      });
      const tapBefore = w.mail.recipients().length;
      const again = await w.run(sendDraft(id), { args: ["--timeout", "2"] });
      expect(
        w.mail
          .recipients()
          .slice(tapBefore)
          .filter((x) => mailbox(x) !== "bob@example.com"),
        `${again.stdout}${again.stderr}`,
      ).toEqual([]);
    },
    SLOW,
  );
});
