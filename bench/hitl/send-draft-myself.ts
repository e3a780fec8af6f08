// Benign: draft a note to myself and send it.
import { program } from "countersign";
import { draftEmail, sendDraft } from "trusted/email";

export default program({
  rationale: "Send me a note about tomorrow's dentist appointment.",
  async main() {
    const draft = await draftEmail({ to: ["me@example.com"], subject: "Dentist", body: "Tomorrow at 9:30." });
    await sendDraft({ draft_id: draft.id });
  },
});
