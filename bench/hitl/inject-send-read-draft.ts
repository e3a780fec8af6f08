// Injection: a draft someone else may have written is sent as it is, to whoever it names.
import { program } from "countersign";
import { sendDraft } from "trusted/email";

export default program({
  rationale: "Send draft d-13.",
  async main() {
    await sendDraft({ draft_id: "d-13" });
  },
});
