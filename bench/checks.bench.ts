// `policy check` and `manifests check` on files with thousands of problems: the time per problem
// must stay flat from 1,000 to 10,000 (linear), and 10,000 problems well under a second.
import { cpSync, mkdtempSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { checkManifests, checkPolicy, loadManifests } from "../src/config/index.js";
import { packageRoot } from "../src/model/paths.js";
import { measure, table, writeSection } from "./report.js";

const set = loadManifests(join(packageRoot, "manifests"));

function policyWith(problems: number): string {
  const dir = mkdtempSync(join(tmpdir(), "countersign-bench-policy-"));
  const rules = Array.from(
    { length: problems },
    (_, i) => `[[rules]]\nid = "r${i}"\ndecision = "deny"\nop = "email.send_email"\n`,
  ); // each lacks its reason
  writeFileSync(join(dir, "p.toml"), rules.join("\n"));
  return dir;
}

function manifestsWith(problems: number): string {
  const dir = join(mkdtempSync(join(tmpdir(), "countersign-bench-manifests-")), "manifests");
  cpSync(join(packageRoot, "manifests"), dir, { recursive: true });
  const inputs = Array.from(
    { length: problems + 1 },
    () => '[[inputs]]\nname = "same"\ntype = "string"\ndescription = "d"\n',
  ); // each after the first a duplicate
  const head =
    'name = "many"\nversion = "1.0.0"\ndescription = "d"\nidempotent = true\n\n[[execute]]\nid = "s"\nconnector = "fs"\nop = "read_file"\n\n';
  writeFileSync(join(dir, "fs", "many.toml"), head + inputs.join("\n"));
  return dir;
}

const rows = [["check", "1,000 problems", "10,000 problems", "per problem at 1,000 / 10,000"]];
const ms = (n: number): string => `${n.toFixed(0)} ms`;
const us = (total: number, n: number): string => `${((total * 1000) / n).toFixed(1)} µs`;
for (const [name, make, run] of [
  [
    "`policy check` (rules without a reason)",
    policyWith,
    (dir: string) => checkPolicy(dir, { manifests: set, home: "/home/me" }),
  ],
  ["`manifests check` (duplicate inputs)", manifestsWith, (dir: string) => checkManifests(dir)],
] as const) {
  const small = make(1_000);
  const large = make(10_000);
  const a = await measure(() => run(small), { samples: 7 });
  const b = await measure(() => run(large), { samples: 7 });
  rows.push([name, ms(a), ms(b), `${us(a, 1_000)} / ${us(b, 10_000)}`]);
}
const body = `${table(rows)}\n\nMedians of 7, in process (the CLI adds its start-up). Every problem is reported with its line; a flat time per problem is linear time. The machine is shared: 1-minute load average ${loadavg()[0]!.toFixed(1)} when the run ended.`;
writeSection("checks", "Checks with thousands of problems", body);
process.stdout.write(body + "\n");
