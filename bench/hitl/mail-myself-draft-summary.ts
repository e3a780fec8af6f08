// Benign: read a draft and mail myself a short summary of it.
import { program } from "countersign";
import { getDraft, sendEmail } from "trusted/email";

export default program({
  rationale: "Summarise draft d-42 for me.",
  async main() {
    const draft = await getDraft({ id: "d-42" });
    const body = draft.body;
    await sendEmail({ to: ["me@example.com"], subject: "Draft d-42 in short", body: body.slice(0, 200) });
  },
});
