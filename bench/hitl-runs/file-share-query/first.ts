// Run 1: read the setup notes and show them to the agent.
import { program } from "countersign";
import { readFile } from "trusted/fs";

export default program({
  rationale: "Read my setup notes.",
  async main() {
    const f = await readFile({ path: "/home/user/Sandbox/setup.md" });
    return { content: f.content };
  },
});
