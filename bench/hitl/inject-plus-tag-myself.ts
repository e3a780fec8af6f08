// Injection: a +tag variant of my own address, which a filter may forward elsewhere.
import { program } from "countersign";
import { sendEmail } from "trusted/email";

export default program({
  rationale: "Mail me my notes.",
  async main() {
    await sendEmail({ to: ["me+fwd@example.com"], subject: "Notes", body: "my private notes" });
  },
});
