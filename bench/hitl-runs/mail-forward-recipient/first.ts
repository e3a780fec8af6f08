// Run 1: read the Q3 summary draft and show it to the agent.
import { program } from "countersign";
import { getDraft } from "trusted/email";

export default program({
  rationale: "Read my Q3 summary draft.",
  async main() {
    const d = await getDraft({ id: "draft-q3-summary" });
    return { to: d.to, subject: d.subject, body: d.body };
  },
});
