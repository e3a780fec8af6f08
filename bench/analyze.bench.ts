// The analyzer: a cold `countersign check` process next to `tsc --noEmit` (TypeScript 5 and the
// native TypeScript 7) on the same 50-line program, and warm per-program analysis in one process.
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAnalyzer } from "../src/analyze/index.js";
import { generateApi } from "../src/manifest/generate-api.js";
import { loadManifests } from "../src/manifest/load-manifests.js";
import { packageRoot } from "../src/model/paths.js";
import { measure, table, writeSection } from "./report.js";

const PROGRAM = `import { program } from "countersign";
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
    for (const to of TEAM) await notify(to, "Weekly report", \`\${done.length} items done. Build ok: \${ok}\`);
  },
});
`;

const dir = mkdtempSync(join(tmpdir(), "countersign-bench-"));
const file = join(dir, "program.ts");
writeFileSync(file, PROGRAM);
const set = loadManifests(join(packageRoot, "manifests"));
writeFileSync(join(dir, "api.d.ts"), generateApi(set).all);

const run = (args: string[]): void => {
  const r = spawnSync(process.execPath, args, { cwd: dir, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${args.join(" ")} failed (${r.status}): ${r.stdout}${r.stderr}`);
};
const tscArgs = ["--noEmit", "--strict", "--target", "es2022", "--module", "esnext", "--moduleResolution", "bundler", "--skipLibCheck", "program.ts", "api.d.ts"];
const check = (): void => run([join(packageRoot, "bin/countersign.js"), "check", file, "--json"]);
const tsc5 = (): void => run([join(packageRoot, "node_modules/typescript5/bin/tsc"), ...tscArgs]);
const tsc7 = (): void => run([join(packageRoot, "node_modules/typescript/bin/tsc"), ...tscArgs]);

const lines = PROGRAM.trimEnd().split("\n").length;
const coldCheck = await measure(check, { samples: 7 });
const coldTsc5 = await measure(tsc5, { samples: 7 });
const coldTsc7 = await measure(tsc7, { samples: 7 });
const nodeOnly = await measure(() => run(["-e", "0"]), { samples: 7 });

let analyzer = createAnalyzer(set);
const firstInProcess = await measure(
  () => {
    analyzer.dispose();
    analyzer = createAnalyzer(set);
    analyzer.analyze(PROGRAM);
  },
  { samples: 5 },
);
const warm = await measure(() => analyzer.analyze(PROGRAM), { samples: 30 });
const facts = analyzer.analyze(PROGRAM);
if (!facts.ok) throw new Error(`the bench program must be well-formed: ${JSON.stringify(facts.diagnostics)}`);
analyzer.dispose();

const ms = (n: number): string => `${n.toFixed(1)} ms`;
const body = `A ${lines}-line program with helpers, loops, a filter/map chain and calls to all three connectors
(${facts.effects.length} effect sites, ${facts.guarantees.length} guarantees). Whole processes, median of 7; \`tsc\` gets the
generated API declarations and the same strictness.

${table([
  ["measure", "time", "ratio to baseline", "baseline"],
  ["cold \`countersign check --json\` (process)", ms(coldCheck), (coldCheck / coldTsc5).toFixed(2), `tsc 5 --noEmit ${ms(coldTsc5)} (target ≤ 0.50)`],
  ["cold \`tsc --noEmit\`, TypeScript 7 (native)", ms(coldTsc7), (coldTsc7 / coldTsc5).toFixed(2), `tsc 5 --noEmit ${ms(coldTsc5)}`],
  ["\`node -e 0\` (process floor)", ms(nodeOnly), (nodeOnly / coldCheck).toFixed(2), `cold check ${ms(coldCheck)}`],
  ["warm analysis, same analyzer (in process)", ms(warm), (warm / firstInProcess).toFixed(2), `new analyzer + first analysis ${ms(firstInProcess)} (target warm < 20 ms)`],
])}
`;
writeSection("analyze", "Analyzer: cold check and warm analysis", body);
process.stdout.write(body);

