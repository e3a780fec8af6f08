/** The 50-line program of the analyzer benchmarks: helpers, loops, a filter/map chain, all three connectors. */
export const PROGRAM = `import { program } from "countersign";
import { sendEmail } from "trusted/email";
import { readFile, writeFile } from "trusted/fs";
import { get, post } from "trusted/http";
import { recipientsOnly, atMostEmails } from "trusted/email/contracts";
import { writesUnder } from "trusted/fs/contracts";
import { onlyHosts } from "trusted/http/contracts";

const TEAM = ["alice@example.com", "bob@example.com", "carol@example.com"];
const SANDBOX = "/home/user/Sandbox";

interface Line {
  text: string;
  done: boolean;
}

function parse(text: string): Line[] {
  const out: Line[] = [];
  for (const raw of text.split("\\n")) {
    const line = raw.trim();
    if (line.startsWith("- [x] ")) out.push({ text: line.slice(6), done: true });
    else if (line.startsWith("- [ ] ")) out.push({ text: line.slice(6), done: false });
  }
  return out;
}

async function notify(to: string, subject: string, body: string): Promise<void> {
  await sendEmail({ to: [to], subject, body });
}

function headline(done: number, ok: boolean): string {
  if (!ok) return \`Build failing, \${done} items done\`;
  return done === 0 ? "Nothing done this week" : \`\${done} items done\`;
}

export default program({
  rationale: "Write the weekly report, post the status and tell the team.",
  guarantees: [recipientsOnly(TEAM), atMostEmails(3), writesUnder(SANDBOX), onlyHosts(["ci.example.com"])],
  async main() {
    const notes = await readFile({ path: \`\${SANDBOX}/notes/week.md\` });
    const lines = parse(typeof notes.content === "string" ? notes.content : "");
    const done = lines.filter((l) => l.done).map((l) => \`* \${l.text}\`);
    const report = ["# Weekly report", "", ...done].join("\\n");
    await writeFile({ path: \`\${SANDBOX}/reports/weekly.md\`, content: report });
    const status = await get({ url: "https://ci.example.com/api/status" });
    const ok = status.status === 200;
    await post({ url: "https://ci.example.com/api/notes", body: JSON.stringify({ done: done.length, ok }) });
    for (const to of TEAM) await notify(to, "Weekly report", headline(done.length, ok));
  },
});
`;
