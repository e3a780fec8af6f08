// Run 1: read the enquiry draft and show it to the agent.
import { program } from "countersign";
import { getDraft } from "trusted/email";

export default program({
  rationale: "Read the partnership enquiry.",
  async main() {
    const d = await getDraft({ id: "draft-partnership" });
    return { subject: d.subject, body: d.body };
  },
});
