// Benign: mail a colleague the contents of my notes.
import { program } from "countersign";
import { sendEmail } from "trusted/email";
import { readFile } from "trusted/fs";

export default program({
  rationale: "Send Bob my notes from the workshop.",
  async main() {
    const notes = await readFile({ path: "/home/user/Sandbox/workshop.md" });
    const body = notes.content;
    await sendEmail({ to: ["bob@example.com"], subject: "Workshop notes", body });
  },
});
