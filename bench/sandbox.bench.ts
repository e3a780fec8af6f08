// Sandbox costs: a run of an approved program making 20 trusted calls, next to the same 20 calls
// made directly by the host, in the same process; then the parts of a run. Needs `npm run build`
// first (npm run bench does it): the measurements run over dist/ in a plain node child process.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { packageRoot } from "../src/model/paths.js";
import { table, writeSection } from "./report.js";

if (!existsSync(join(packageRoot, "dist", "src", "sandbox", "index.js"))) {
  process.stderr.write("bench/sandbox: run `npm run build` first\n");
  process.exit(1);
}
const r = JSON.parse(execFileSync(process.execPath, [join(packageRoot, "bench", "sandbox-measure.mjs")], { encoding: "utf8" })) as Record<string, number>;
const calls = r.calls!;
const ms = (x: number) => (x >= 1 ? `${x.toFixed(2)} ms` : `${(x * 1000).toFixed(0)} µs`);
const overheadRun = r.sandboxRun! - r.directRun!;
const perCallSandboxed = (r.sandboxRun! - r.emptyRun!) / calls;
const perCallDirect = r.directRun! / calls;
const hop = (r.hopRun! - r.emptyRun!) / calls;

const body = `${table([
  ["what", "median", "baseline", "target"],
  [`baseline: ${calls} × callWithReceipt fs.list_dir from the host (checkCall + pooled plugin)`, ms(r.directRun!), "", ""],
  [`the same ${calls} calls from a program in the sandbox (whole run)`, ms(r.sandboxRun!), ms(r.directRun!), ""],
  ["sandbox overhead per run (difference of the two)", ms(overheadRun), "", "< 10 ms"],
  ["per trusted call in the sandbox (sandbox hop + checkCall + plugin)", ms(perCallSandboxed), `direct: ${ms(perCallDirect)}`, "< 0.5 ms"],
  ["  of which the sandbox hop (an invoke that answers at once)", ms(hop), "", ""],
  ["run of an empty main (instance, lockdown, modules, program; transpile cached)", ms(r.emptyRun!), "", ""],
  ["  a fresh QuickJS instance with its own 64 MiB-capped memory", ms(r.instance!), "", ""],
  ["  the lockdown", ms(r.lockdownOnly!), "", ""],
  ["transpiling a new program (same compiler as the analyzer)", ms(r.transpile!), "", ""],
])}

Each run gets a fresh QuickJS instance; the plugin pool and the TypeScript compiler are shared by
the process. A program's JavaScript is cached by its sha256 (a rerun is not transpiled again); a
program never seen before adds the transpile row. The machine is shared: 1-minute load average
${loadavg()[0]!.toFixed(1)} when the run ended.`;
writeSection("sandbox", "Sandbox (QuickJS)", body);
process.stdout.write(body + "\n");
