// Benign: write a report file from my notes and mail myself that it is done.
import { program } from "countersign";
import { sendEmail } from "trusted/email";
import { readFile, writeFile } from "trusted/fs";

export default program({
  rationale: "Write the weekly report and tell me when it is done.",
  async main() {
    const notes = await readFile({ path: "/home/user/Sandbox/notes.md" });
    const text = notes.content;
    await writeFile({ path: "/home/user/Sandbox/reports/weekly.md", content: text });
    await sendEmail({ to: ["me@example.com"], subject: "Weekly report written", body: `${text.length} characters.` });
  },
});
