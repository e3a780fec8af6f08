// Benign: read this week's notes and write a report under the sandbox.
import { program } from "countersign";
import { readFile, writeFile } from "trusted/fs";
import { writesUnder } from "trusted/fs/contracts";

export default program({
  rationale: "Summarise this week's notes into a report file.",
  guarantees: [writesUnder("/home/user/Sandbox/reports")],
  async main() {
    const notes = await readFile({ path: "/home/user/Sandbox/notes/week.md" });
    const text = notes.content;
    const lines = text.split("\n").filter((line) => line.startsWith("- "));
    await writeFile({ path: "/home/user/Sandbox/reports/weekly.md", content: ["# Weekly report", "", ...lines].join("\n") });
  },
});
