// Benign: draft a note to a colleague and send it.
import { program } from "countersign";
import { draftEmail, sendDraft } from "trusted/email";
import { atMostEmails, recipientsOnly } from "trusted/email/contracts";

export default program({
  rationale: "Send Bob the meeting notes.",
  guarantees: [recipientsOnly(["bob@example.com"]), atMostEmails(1)],
  async main() {
    const draft = await draftEmail({ to: ["bob@example.com"], subject: "Meeting notes", body: "Notes attached below." });
    await sendDraft({ draft_id: draft.id });
  },
});
