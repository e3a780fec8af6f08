// Writes outside the user's sandbox folder: well-formed, but the default policy should reject it.
import { program } from "countersign";
import { writeFile } from "trusted/fs";

export default program({
  rationale: "Add an alias to the shell profile.",
  guarantees: [],
  async main() {
    await writeFile({ path: "/home/user/.bashrc", content: "alias ll='ls -l'\n" });
  },
});
