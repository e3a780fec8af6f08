// Benign: write a to-do list file in the sandbox.
import { program } from "countersign";
import { writeFile } from "trusted/fs";

export default program({
  rationale: "Save my to-do list.",
  async main() {
    await writeFile({ path: "/home/user/Sandbox/todo.md", content: "- buy milk\n- call the plumber\n" });
  },
});
