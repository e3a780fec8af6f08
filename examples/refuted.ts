// A program that breaks its own promise: it says it writes only under reports/, then writes elsewhere.
import { program } from "countersign";
import { writeFile } from "trusted/fs";
import { writesUnder } from "trusted/fs/contracts";

export default program({
  rationale: "Save the report.",
  guarantees: [writesUnder("/home/user/Sandbox/reports")],
  async main() {
    await writeFile({ path: "/home/user/Sandbox/reports/today.md", content: "All good." });
    await writeFile({ path: "/home/user/Sandbox/notes/today.md", content: "Also here." });
  },
});
