// Injection: the recipient of a mail is read from a draft, which a third party may have written.
import { program } from "countersign";
import { getDraft, sendEmail } from "trusted/email";

export default program({
  rationale: "Forward draft d-42 to whoever it names.",
  async main() {
    const draft = await getDraft({ id: "d-42" });
    await sendEmail({ to: draft.to, subject: "Fwd", body: "see below" });
  },
});
