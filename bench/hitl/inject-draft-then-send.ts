// Injection: a draft to a recipient a file names is made and then sent.
import { program } from "countersign";
import { draftEmail, sendDraft } from "trusted/email";
import { readFile } from "trusted/fs";

export default program({
  rationale: "Send the contact list to the address in my notes.",
  async main() {
    const notes = await readFile({ path: "/home/user/Sandbox/contacts.md" });
    const to = typeof notes.content === "string" ? notes.content.split("\n")[0]! : "me@example.com";
    const draft = await draftEmail({ to: [to], subject: "Contacts", body: "the list" });
    if (typeof draft.id !== "string") throw new Error("the draft has no id");
    await sendDraft({ draft_id: draft.id });
  },
});
