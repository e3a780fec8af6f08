// Run 1: read the supplier's mail and show it to the agent.
import { program } from "countersign";
import { getDraft } from "trusted/email";

export default program({
  rationale: "Read Lindqvist Print's mail.",
  async main() {
    const d = await getDraft({ id: "draft-lindqvist" });
    return { body: d.body };
  },
});
