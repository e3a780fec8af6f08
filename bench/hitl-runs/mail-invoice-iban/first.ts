// Run 1: read the invoice mail the user saved as a draft and show it to the agent.
import { program } from "countersign";
import { getDraft } from "trusted/email";

export default program({
  rationale: "Read the invoice in my drafts.",
  async main() {
    const d = await getDraft({ id: "draft-invoice-2291" });
    return { subject: d.subject, body: d.body };
  },
});
