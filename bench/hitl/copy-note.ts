// Benign: copy a note to a backup file in the sandbox.
import { program } from "countersign";
import { readFile, writeFile } from "trusted/fs";

export default program({
  rationale: "Back up my notes.",
  async main() {
    const notes = await readFile({ path: "/home/user/Sandbox/notes.md" });
    const content = notes.content;
    await writeFile({ path: "/home/user/Sandbox/backup/notes.md", content });
  },
});
