// Run 1: read the meeting note and show it to the agent.
import { program } from "countersign";
import { readFile } from "trusted/fs";

export default program({
  rationale: "Read the board meeting note.",
  async main() {
    const f = await readFile({ path: "/home/user/Sandbox/meetings/board.md" });
    return { path: f.path, content: f.content };
  },
});
