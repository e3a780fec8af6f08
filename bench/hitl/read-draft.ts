// Benign: read a draft (to summarise it in the chat); nothing changes.
import { program } from "countersign";
import { getDraft } from "trusted/email";

export default program({
  rationale: "Read draft d-42 so I can summarise it.",
  async main() {
    await getDraft({ id: "d-42" });
  },
});
