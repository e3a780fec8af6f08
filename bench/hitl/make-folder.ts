// Benign: make a folder for a new project in the sandbox.
import { program } from "countersign";
import { makeDir } from "trusted/fs";

export default program({
  rationale: "Make a folder for the delta project.",
  async main() {
    await makeDir({ path: "/home/user/Sandbox/projects/delta" });
  },
});
