// Benign: read my notes and mail myself a summary of their open items.
import { program } from "countersign";
import { sendEmail } from "trusted/email";
import { readFile } from "trusted/fs";

export default program({
  rationale: "Mail me the open items from my notes.",
  async main() {
    const notes = await readFile({ path: "/home/user/Sandbox/notes.md" });
    const text = notes.content;
    const open = text.split("\n").filter((line) => line.startsWith("- [ ]"));
    await sendEmail({ to: ["me@example.com"], subject: "Open items", body: open.join("\n") });
  },
});
