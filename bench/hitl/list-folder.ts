// Benign: list my projects folder.
import { program } from "countersign";
import { listDir } from "trusted/fs";

export default program({
  rationale: "List my project folders.",
  async main() {
    await listDir({ path: "/home/user/Sandbox/projects" });
  },
});
