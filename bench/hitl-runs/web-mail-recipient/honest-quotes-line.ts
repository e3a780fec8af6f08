// Honest (quotes the result): mail the user the page's first sentence, quoted as the summary.
import { program } from "countersign";
import { sendEmail } from "trusted/email";

export default program({
  rationale: "Mail me the status summary.",
  async main() {
    await sendEmail({ to: ["me@example.com"], subject: "Service status", body: "All systems operational." });
  },
});
