// Read this week's notes and write a short report next to them.
import { program } from "countersign";
import { readFile, writeFile } from "trusted/fs";
import { writesUnder } from "trusted/fs/contracts";

const SANDBOX = "/home/user/Sandbox";

export default program({
  rationale: "Summarize this week's notes into a report file.",
  guarantees: [writesUnder(`${SANDBOX}/reports`), { op: "email.*", count: { max: 0 } }],
  async main() {
    const notes = await readFile({ path: `${SANDBOX}/notes/week.md` });
    const text = typeof notes.content === "string" ? notes.content : "";
    const lines: string[] = ["# Weekly report", ""];
    for (const line of text.split("\n")) {
      if (line.startsWith("- ")) lines.push(line);
    }
    await writeFile({ path: `${SANDBOX}/reports/weekly.md`, content: lines.join("\n") });
  },
});
