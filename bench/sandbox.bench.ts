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
type Timing = { ms: number; cpuMs: number };
const r = JSON.parse(execFileSync(process.execPath, [join(packageRoot, "bench", "sandbox-measure.mjs")], { encoding: "utf8" })) as Record<string, Timing> & { calls: number };
const calls = r.calls;
const ms = (x: number) => (x >= 1 ? `${x.toFixed(2)} ms` : `${(x * 1000).toFixed(0)} µs`);
// Both figures of a timing, or of a difference of timings.
const both = (f: (key: keyof Timing) => number) => [ms(f("ms")), ms(f("cpuMs"))];
const t = (name: string) => (key: keyof Timing) => (r[name] as Timing)[key];

// The targets, judged on CPU time (on a shared machine the steadier figure) and on wall time.
const overhead = (k: keyof Timing) => t("sandboxRun")(k) - t("directRun")(k);
const perCall = (k: keyof Timing) => (t("sandboxRun")(k) - t("emptyRun")(k)) / calls;
const verdict = (name: string, f: (k: keyof Timing) => number, limit: number) =>
  `${name} ${ms(f("cpuMs"))} CPU, ${ms(f("ms"))} wall against < ${ms(limit)}: ${f("cpuMs") < limit && f("ms") < limit ? "met" : f("cpuMs") < limit ? "met in CPU time only" : "not met"}`;

const body = `${table([
  ["what", "wall (median)", "CPU (median)", "target"],
  [`baseline: ${calls} × callWithReceipt fs.list_dir from the host (checkCall + pooled plugin)`, ...both(t("directRun")), ""],
  [`the same ${calls} calls from a program in the sandbox (whole run)`, ...both(t("sandboxRun")), ""],
  ["sandbox overhead per run (difference of the two)", ...both((k) => t("sandboxRun")(k) - t("directRun")(k)), "< 10 ms"],
  ["per trusted call in the sandbox (sandbox hop + checkCall + plugin)", ...both((k) => (t("sandboxRun")(k) - t("emptyRun")(k)) / calls), "< 0.5 ms"],
  ["  the same call made directly", ...both((k) => t("directRun")(k) / calls), ""],
  ["  the sandbox hop alone (an invoke that answers at once)", ...both((k) => (t("hopRun")(k) - t("emptyRun")(k)) / calls), ""],
  ["run of an empty main (instance, lockdown, modules, program; transpile cached)", ...both(t("emptyRun")), ""],
  ["  a fresh QuickJS instance with its own 64 MiB-capped memory", ...both(t("instance")), ""],
  ["  the lockdown", ...both(t("lockdown")), ""],
  ["transpiling a new program (same compiler as the analyzer)", ...both(t("transpile")), ""],
])}

Each run gets a fresh QuickJS instance; the plugin pool and the TypeScript compiler are shared by
the process, and each run's first call gets a plugin instance no earlier run used (both sides of
the comparison pay for it: each sample is a run with a receipt of its own). A program's JavaScript is cached by its sha256 (a rerun is not transpiled again); a
program never seen before adds the transpile row. CPU time is the whole process's (the plugin's
worker thread and the garbage collector included). The machine is shared: 1-minute load average
${loadavg()[0]!.toFixed(1)} when the run ended, so wall times include waits for a core and CPU
times are the steadier figure.

Targets in this run: ${verdict("sandbox overhead per run", overhead, 10)}; ${verdict("per trusted call", perCall, 0.5)}.
Where a trusted call's time goes (CPU profiles of the direct call and of the sandbox hop): the
plugin's own work inside Extism (JSON parsed and printed in AssemblyScript, each 8 bytes of input,
output and host answers crossing Extism's kernel as a host call with BigInt addresses) and the
fs_list host operation (realpath and readdir through libuv) are each about half the 0.5 ms
target; the two wake-ups of the worker per call (the call and its host function) cost tens of µs
each, checkCall and marshalling a few µs; the hop is QuickJS resuming the program's job loop and
serializing the arguments inside the VM. A run's overhead is mostly the QuickJS instance (zeroing
a reused 16 MiB memory), the lockdown and evaluating the generated modules.`;
writeSection("sandbox", "Sandbox (QuickJS)", body);
process.stdout.write(body + "\n");
