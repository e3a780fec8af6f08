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
  [`the same ${calls} calls from a program in the sandbox, realm prepared ahead (whole run)`, ...both(t("sandboxRun")), ""],
  ["sandbox overhead per run (difference of the two)", ...both(overhead), "< 10 ms"],
  ["per trusted call in the sandbox (sandbox hop + checkCall + plugin)", ...both(perCall), "< 0.5 ms"],
  ["  the same call made directly", ...both((k) => t("directRun")(k) / calls), ""],
  ["  the sandbox hop alone (an invoke that answers at once)", ...both((k) => (t("hopRun")(k) - t("emptyRun")(k)) / calls), ""],
  [`the same ${calls} calls in the sandbox, cold (no realm prepared)`, ...both(t("sandboxRunCold")), ""],
  ["  sandbox overhead per run, cold", ...both((k) => t("sandboxRunCold")(k) - t("directRun")(k)), ""],
  ["run of an empty main, realm prepared ahead (program, calls into main, disposal)", ...both(t("emptyRun")), ""],
  ["run of an empty main, cold (instance, lockdown, modules, program; transpile cached)", ...both(t("emptyRunCold")), ""],
  ["  a fresh QuickJS instance with its own 64 MiB-capped memory", ...both(t("instance")), ""],
  ["  the lockdown", ...both(t("lockdown")), ""],
  ["transpiling a new program (same compiler as the analyzer)", ...both(t("transpile")), ""],
])}

Each run gets a fresh QuickJS instance: a realm (instance, host functions, bridge, the imported
modules, lockdown) serves one run and is disposed. \`prepareRun\` builds the realm of a program
ahead, as \`countersign run\` can while it waits for the approval; the prepared rows make it in
the idle time before each sample (un-timed, like the plugin instance below), the cold rows build
it inside the run. The plugin pool and the TypeScript compiler are shared by the process, and each
run's first call gets a plugin instance no earlier run used (both sides of the comparison pay for
it: each sample is a run with a receipt of its own, started after 20 ms idle, in which the pool
makes that instance ahead; the fs plugin runs in the host's thread, see "Stoppable plugin calls"). A program's JavaScript is cached by its sha256 (prepareRun
transpiles it; a rerun is not transpiled again); a program never seen before adds the transpile
row. CPU time is the whole process's (the plugin call's watchdog thread and the garbage collector
included). The machine is shared: 1-minute load average ${loadavg()[0]!.toFixed(1)} when the run
ended, so wall times include waits for a core and CPU times are the steadier figure.

Targets in this run: ${verdict("sandbox overhead per run", overhead, 10)}; ${verdict("per trusted call", perCall, 0.5)}.
Cold, without a prepared realm, the overhead per run is ${ms((t("sandboxRunCold")("cpuMs") - t("directRun")("cpuMs")))} CPU.

Where the time goes (CPU profiles and CPU time of the direct call, of the sandbox hop and of the
plugin alone). A direct call runs the fs plugin in the host's thread, inside a 50 ms slice (a
\`node:vm\` timeout) that stops a runaway plugin: no thread hand-off any more (a call in a worker
crossed threads four times, each a futex wake-up that may wait for a core). The plugin call
inside Extism is ~70–110 µs: the fs_list host function (realpath, readdir, its JSON request and
answer) ~35–45 µs, and the plugin's own work ~30 µs, most of it Extism's JavaScript kernel (46
host calls for a list_dir, each moving 8 bytes with BigInt addresses) and its per-call
bookkeeping: the connectors check their JSON as UTF-8 bytes where the kernel put them, pass on
what they do not read as the bytes it came as, and start each call on an empty bump-allocated
heap (see "Connector host"). The slice's watchdog, a thread Node starts and joins for each call,
costs ~80 µs of CPU and more wall time when the thread waits for a core; a run's first call meets
a fresh plugin instance, which costs it no more than any call after the same idle time (~50–100
µs over back-to-back calls, the caches being cold); checkCall and marshalling are a few µs each.
The per-call floor (plugin plus watchdog, ~150–200 µs) and the hop decide whether the 0.5 ms
target is met; a cheaper stop than a watchdog per call (e.g. a fuel counter compiled into the
plugin's loops) and bytes moved in blocks rather than in 8-byte host calls (a host function that
copies into the plugin's memory) would be the next steps. A call
from a run costs more CPU than the direct call plus the hop: the two interfere (in a control run,
20 direct calls each after a bit of plain QuickJS work cost ~7 ms more CPU than the calls and the
work apart; most likely the caches of the shared cores). The hop (~100–160 µs): the arguments serialized
in the VM (~15 µs), the calls through quickjs-emscripten's FFI (~10 µs each), the listing parsed
in the VM (~15 µs), resuming the program's jobs. A cold run's setup is mostly QuickJS running and
compiling the lockdown's 10 KB hardening script (~4 ms, ~70% of it visiting and trimming the
built-ins, ~20% compiling), the bridge with its serializer (~1 ms, half of it compiling), the
instance (~1.2 ms: instantiating, and checking the reused memory for dirty pages, ~0.5 ms).
quickjs-emscripten offers no bytecode cache (its binary JSON writes no functions), so a fresh
context compiles these sources again each run.`;
writeSection("sandbox", "Sandbox (QuickJS)", body);
process.stdout.write(body + "\n");
