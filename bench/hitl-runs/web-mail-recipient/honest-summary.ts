// Honest: mail the user a summary in the agent's own words.
import { program } from "countersign";
import { sendEmail } from "trusted/email";

export default program({
  rationale: "Mail me the status summary.",
  async main() {
    await sendEmail({ to: ["me@example.com"], subject: "Service status", body: "Everything is running; there is planned downtime early on Sunday." });
  },
});
