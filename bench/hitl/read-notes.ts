// Benign: read my notes.
import { program } from "countersign";
import { readFile } from "trusted/fs";

export default program({
  rationale: "Read my notes.",
  async main() {
    await readFile({ path: "/home/user/Sandbox/notes.md" });
  },
});
