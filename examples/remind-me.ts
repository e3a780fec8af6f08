// Mail a reminder to yourself. The default policy lets mail to your own address through without
// asking (rule email.to-myself; your address is [email] address in connections.toml), so this
// program runs at once.
import { program } from "countersign";
import { sendEmail } from "trusted/email";
import { atMostEmails, recipientsOnly } from "trusted/email/contracts";

export default program({
  rationale: "Remind me to water the plants.",
  guarantees: [recipientsOnly(["me@example.com"]), atMostEmails(1)],
  async main() {
    await sendEmail({ to: ["me@example.com"], subject: "Reminder", body: "Water the plants before Friday." });
  },
});
