// Benign: draft an update to the team from my notes; I review it before anything is sent.
import { program } from "countersign";
import { draftEmail } from "trusted/email";
import { readFile } from "trusted/fs";

export default program({
  rationale: "Draft the weekly update from my notes.",
  async main() {
    const notes = await readFile({ path: "/home/user/Sandbox/week.md" });
    const body = notes.content;
    await draftEmail({ to: ["team@example.com"], subject: "Weekly update", body });
  },
});
