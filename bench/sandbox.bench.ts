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
the comparison pay for it: each sample is a run with a receipt of its own, started after 20 ms
idle, in which the plugin worker makes that instance ahead). A program's JavaScript is cached by its sha256 (a rerun is not transpiled again); a
program never seen before adds the transpile row. CPU time is the whole process's (the plugin's
worker thread and the garbage collector included). The machine is shared: 1-minute load average
${loadavg()[0]!.toFixed(1)} when the run ended, so wall times include waits for a core and CPU
times are the steadier figure.

Targets in this run: ${verdict("sandbox overhead per run", overhead, 10)}; ${verdict("per trusted call", perCall, 0.5)}.
Where a trusted call's time goes (CPU profiles of the direct call, of the sandbox hop and of the
plugin in the foreground): the plugin's own work inside Extism is ~160 µs (JSON parsed and printed
in AssemblyScript, each 8 bytes of input, output and host answers crossing Extism's kernel as a
host call with BigInt addresses); the call crosses threads four times (the call, the fs_list
request, its answer, the result), and on this shared 2-core machine each wake-up may wait for a
core; the fs_list host operation is ~20 µs now that its realpath and readdir are synchronous
(through the thread pool they cost ~140 µs); checkCall, marshalling and the action's plumbing a
few µs each; the hop (~100–160 µs) is QuickJS serializing the arguments in the VM, the calls
through quickjs-emscripten's FFI and resuming the program's job loop. A run's overhead is mostly
QuickJS compiling the sources every run evaluates (the bridge with its serializer, 3.7 KB, takes
~1.1 ms; the lockdown's 10 KB hardening script ~4 ms with the freezing it does; the generated
modules), then the instance (~1.5 ms: instantiating, and zeroing the reused memory: a memcmp of
its 16 MiB finds the ~320 KiB of pages a run dirtied, and only those are filled).
quickjs-emscripten offers no bytecode cache (its binary JSON writes no functions), so a fresh
context compiles these sources again each run.`;
writeSection("sandbox", "Sandbox (QuickJS)", body);
process.stdout.write(body + "\n");
