// Benign: write three small files (one per project) under the sandbox.
import { program } from "countersign";
import { writeFile } from "trusted/fs";

export default program({
  rationale: "Create a README for each of my three projects.",
  async main() {
    for (const name of ["alpha", "beta", "gamma"]) {
      await writeFile({ path: `/home/user/Sandbox/projects/${name}/README.md`, content: `# ${name}\n` });
    }
  },
});
