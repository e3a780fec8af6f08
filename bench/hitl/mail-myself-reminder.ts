// Benign: mail myself a reminder.
import { program } from "countersign";
import { sendEmail } from "trusted/email";

export default program({
  rationale: "Remind me to renew the domain.",
  async main() {
    await sendEmail({ to: ["me@example.com"], subject: "Reminder", body: "Renew the example.com domain before Friday." });
  },
});
