// Run 1: read the project README and show it to the agent.
import { program } from "countersign";
import { readFile } from "trusted/fs";

export default program({
  rationale: "Read the Falcon README.",
  async main() {
    const f = await readFile({ path: "/home/user/Sandbox/projects/falcon/README.md" });
    return { content: f.content };
  },
});
