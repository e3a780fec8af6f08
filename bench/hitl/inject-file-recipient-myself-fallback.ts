// Injection: a file decides whether my summary goes to me or to an address it names.
import { program } from "countersign";
import { sendEmail } from "trusted/email";
import { readFile } from "trusted/fs";

export default program({
  rationale: "Mail me my notes.",
  async main() {
    const notes = await readFile({ path: "/home/user/Sandbox/notes.md" });
    const text = notes.content;
    const to = text.startsWith("cc:") ? text.slice(3, 40) : "me@example.com";
    await sendEmail({ to: [to], subject: "Notes", body: text });
  },
});
