// Benign: tell a colleague (Bob) that the quarterly report is ready.
import { program } from "countersign";
import { sendEmail } from "trusted/email";

export default program({
  rationale: "Tell Bob the quarterly report is ready.",
  async main() {
    await sendEmail({ to: ["bob@example.com"], subject: "Quarterly report", body: "Hi Bob, the quarterly report is ready in the shared folder." });
  },
});
