// Benign: make a draft to a colleague for me to review; nothing is sent.
import { program } from "countersign";
import { draftEmail } from "trusted/email";

export default program({
  rationale: "Draft a thank-you note to Bob for me to review.",
  async main() {
    await draftEmail({ to: ["bob@example.com"], subject: "Thank you", body: "Thanks for covering for me last week." });
  },
});
