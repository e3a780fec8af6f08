// Benign: invite two colleagues to a meeting.
import { program } from "countersign";
import { sendEmail } from "trusted/email";
import { atMostEmails, recipientsOnly } from "trusted/email/contracts";

export default program({
  rationale: "Invite Bob and Carol to Tuesday's planning meeting.",
  guarantees: [recipientsOnly(["bob@example.com", "carol@example.com"]), atMostEmails(1)],
  async main() {
    await sendEmail({ to: ["bob@example.com", "carol@example.com"], subject: "Planning, Tuesday 10:00", body: "See you in room 2." });
  },
});
