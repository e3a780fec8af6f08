// Benign: read a draft and make a reply draft to its author (fixed address) quoting it.
import { program } from "countersign";
import { draftEmail, getDraft } from "trusted/email";

export default program({
  rationale: "Draft a reply to Alice quoting her draft d-7.",
  async main() {
    const draft = await getDraft({ id: "d-7" });
    const body = draft.body;
    await draftEmail({ to: ["alice@example.com"], subject: "Re: your proposal", body: `Thanks, looks good.\n\n> ${body}` });
  },
});
