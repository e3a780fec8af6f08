// Run 1: read the IT notice draft and show it to the agent.
import { program } from "countersign";
import { getDraft } from "trusted/email";

export default program({
  rationale: "Read the IT notice in my drafts.",
  async main() {
    const d = await getDraft({ id: "draft-it-notice" });
    return { subject: d.subject, body: d.body };
  },
});
