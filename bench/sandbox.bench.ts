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
const r = JSON.parse(
  execFileSync(process.execPath, [join(packageRoot, "bench", "sandbox-measure.mjs")], { encoding: "utf8" }),
) as Record<string, Timing> & { calls: number };
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
  [
    `baseline: ${calls} × callWithReceipt fs.list_dir from the host (checkCall + pooled plugin)`,
    ...both(t("directRun")),
    "",
  ],
  [
    `the same ${calls} calls from a program in the sandbox, realm prepared ahead (whole run)`,
    ...both(t("sandboxRun")),
    "",
  ],
  ["sandbox overhead per run (difference of the two)", ...both(overhead), "< 10 ms"],
  ["per trusted call in the sandbox (sandbox hop + checkCall + plugin)", ...both(perCall), "< 0.5 ms"],
  ["  the same call made directly", ...both((k) => t("directRun")(k) / calls), ""],
  [
    "  the sandbox hop alone (an invoke that answers at once)",
    ...both((k) => (t("hopRun")(k) - t("emptyRun")(k)) / calls),
    "",
  ],
  [`the same ${calls} calls in the sandbox, cold (no realm prepared)`, ...both(t("sandboxRunCold")), ""],
  ["  sandbox overhead per run, cold", ...both((k) => t("sandboxRunCold")(k) - t("directRun")(k)), ""],
  ["run of an empty main, realm prepared ahead (program, calls into main, disposal)", ...both(t("emptyRun")), ""],
  [
    "run of an empty main, cold (instance, lockdown, modules, program; transpile cached)",
    ...both(t("emptyRunCold")),
    "",
  ],
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
row. CPU time is the whole process's (the garbage collector included). The machine is shared: 1-minute load average ${loadavg()[0]!.toFixed(1)} when the run
ended, so wall times include waits for a core and CPU times are the steadier figure.

Targets in this run: ${verdict("sandbox overhead per run", overhead, 10)}; ${verdict("per trusted call", perCall, 0.5)}.
Cold, without a prepared realm, the overhead per run is ${ms(t("sandboxRunCold")("cpuMs") - t("directRun")("cpuMs"))} CPU.

Where the time goes (CPU profiles and CPU time of the direct call, of the sandbox hop and of the
plugin alone). A direct call runs the fs plugin in the host's thread, in a 50 ms slice that the
plugin's fuel meter ends should it run away (see "Stoppable plugin calls"): no thread hand-off (a call in a worker
crossed threads four times, each a futex wake-up that may wait for a core). The plugin call
inside Extism is ~70–110 µs: the fs_list host function (realpath, readdir, its JSON request and
answer) ~35–45 µs, and the plugin's own work ~30 µs, most of it Extism's JavaScript kernel (46
host calls for a list_dir, each moving 8 bytes with BigInt addresses) and its per-call
bookkeeping: the connectors check their JSON as UTF-8 bytes where the kernel put them, pass on
what they do not read as the bytes it came as, and start each call on an empty bump-allocated
heap (see "Connector host"). A run's first call meets a fresh plugin instance, which costs it
no more than any call after the same idle time (~50–100 µs over back-to-back calls, the caches
being cold); checkCall and marshalling are a few µs each. The per-call floor is the plugin itself,
~150 µs. Until the fuel meter, the slice was a \`node:vm\` timeout: a watchdog thread Node started
and joined for each call, ~80 µs of CPU and, on a busy machine, several hundred µs of wall time
waiting for a core. The same benchmark on the version before and after, in turns, 3 runs each
(load 2.4–3.5): per trusted call 705–745 → 472–517 µs of CPU and 0.91–1.22 ms → 492–629 µs wall;
the direct call 457–481 → 265–277 µs of CPU and 737–864 → 288–329 µs wall.
The sandbox thread: the QuickJS instance runs in a worker thread that the run's thread
terminates at a limit or on Ctrl-C (QuickJS asks its interrupt handler only between bytecodes,
so one native call over a huge array would otherwise hold the thread past every limit). Each
trusted call now crosses threads twice, the call out and its answer back, each a message that
wakes the other thread's event loop. Measured with this benchmark before and after on the same
machine, quiet: the hop went from 105 to 355 µs wall, a trusted call from 442 to 746 µs (over the
0.5 ms target), the overhead of a prepared 20-call run from 3.90 to 8.94 ms and of a cold one
from 12.50 to 24.34 ms (the realm is built in the sandbox thread). A bare postMessage round trip
between two threads costs ~110–140 µs here. Against a provider's answer (tens to hundreds of ms)
this is small; the run's thread no longer waits for anything the program does.
The hop: a trusted call does not cross to the host when the program makes it. Inside the VM its
arguments are read into JSON text at once (the serializer, ~15 µs for \`{ path }\`), and the call
is queued with a promise for the program. The host takes every queued call in one crossing after
the program's jobs have run, and later settles each in one more, where the answer is parsed
inside the VM (~10 µs for the listing). Before, each call was a host function called from the VM:
quickjs-emscripten's trampoline costs ~10–13 µs a call, plus a crossing back into the VM to
serialize; and the serializer called JSON.stringify for every string and number (~2–4 µs each in
QuickJS), where it now quotes a string with nothing to escape as it is. Measured with this
benchmark's own script, the version before and after in turns, 3 runs each (load 1–4): the hop
went from 125 to 106 µs of CPU and from 127 to 114 µs wall (medians of the runs). What is left is mostly QuickJS's own work:
promises, the async function's resumption, the serializer and JSON.parse, at a few µs for each
small operation. The per-call figures depend on how warm the process is. In one process, the hop
of 20-call runs fell from ~230–260 µs of CPU over the first ~600 calls to ~100 µs after ~3,000,
as V8 tiered up QuickJS's wasm and the host's JavaScript (\`--no-wasm-dynamic-tiering\` brings
the first calls to ~155 µs, at the price of compiling all of QuickJS optimized up front). This
benchmark reports a warm process; \`countersign run\` starts cold, so its calls cost more. A call
from a run costs more CPU than the direct call plus the hop. In an earlier control run, 20 direct
calls, each after a bit of plain QuickJS work, cost ~7 ms more CPU than the calls and the work
apart, most likely from the caches of the shared cores. The two alternate between V8's code and
QuickJS's wasm, and neither stays warm. A cold run's setup is mostly QuickJS running and
compiling the lockdown's 10 KB hardening script (~4 ms, ~70% of it visiting and trimming the
built-ins, ~20% compiling), the bridge with its serializer (~1 ms, half of it compiling), the
instance (~1.2 ms: instantiating, and checking the reused memory for dirty pages, ~0.5 ms).
quickjs-emscripten offers no bytecode cache (its binary JSON writes no functions), so a fresh
context compiles these sources again each run.`;
writeSection("sandbox", "Sandbox (QuickJS)", body);
process.stdout.write(body + "\n");
