// Draft a message to Bob, then send the draft: the user sees the draft before approving the send.
import { program } from "countersign";
import { draftEmail, sendDraft } from "trusted/email";
import { atMostEmails, recipientsOnly } from "trusted/email/contracts";

export default program({
  rationale: "Draft the meeting notes for Bob and send them.",
  guarantees: [recipientsOnly(["bob@example.com"]), atMostEmails(1)],
  async main() {
    const draft = await draftEmail({
      to: ["bob@example.com"],
      subject: "Meeting notes",
      body: "Hi Bob,\n\nThe notes from today's meeting are attached below.\n",
    });
    if (typeof draft.id !== "string") throw new Error("the draft has no id");
    await sendDraft({ draft_id: draft.id });
  },
});
