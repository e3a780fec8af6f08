// Runs every benchmark under bench/ in its own process; each writes its section of BENCHMARKS.md,
// then the summary table that opens it.
import { readdirSync } from "node:fs";
import { spawnSync } from "node:child_process";

const only = process.argv.slice(2);
const files = readdirSync(new URL("../bench/", import.meta.url))
  .filter((f) => f.endsWith(".bench.ts"))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();
let failed = 0;
for (const file of files) {
  process.stdout.write(`\n== ${file}\n`);
  const r = spawnSync(process.execPath, ["--import", "tsx", `bench/${file}`], { stdio: "inherit" });
  if (r.status !== 0) failed++;
}
// The summary table at the top of BENCHMARKS.md, from the figures the sections now hold.
const summary = spawnSync(process.execPath, ["--import", "tsx", "bench/summary.ts"], { stdio: "inherit" });
if (summary.status !== 0) failed++;
process.exit(failed === 0 ? 0 : 1);
