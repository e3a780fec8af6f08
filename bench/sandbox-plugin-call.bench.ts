// A stoppable plugin call for the sandbox's trusted calls: in the host's thread inside a slice
// (ended by the plugin's fuel meter, or by a node:vm timeout), Extism's worker mode and a
// dedicated worker driven over SharedArrayBuffer + Atomics, next to the foreground call without a
// slice (not stoppable) and the host operation itself, in the same run. Needs `npm run build` first.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { packageRoot } from "../src/model/paths.js";
import { table, writeSection } from "./report.js";

if (!existsSync(join(packageRoot, "dist", "src", "connector", "plugin-worker.js"))) {
  process.stderr.write("bench/sandbox-plugin-call: run `npm run build` first\n");
  process.exit(1);
}
type Timing = { ms: number; cpuMs: number };
const r = JSON.parse(
  execFileSync(process.execPath, [join(packageRoot, "bench", "sandbox-plugin-call-measure.mjs")], { encoding: "utf8" }),
) as Record<string, Timing>;
const direct = r.direct!;
const ms = (x: number) => (x >= 1 ? `${x.toFixed(2)} ms` : `${(x * 1000).toFixed(1)} µs`);
const row = (what: string, x: Timing) => [what, ms(x.ms), ms(x.cpuMs), `${(x.ms / direct.ms).toFixed(1)}×`];

const body = `${table([
  ["what (fs list_dir, the real fs_list host function)", "wall (median)", "CPU (median)", "wall vs baseline"],
  row("baseline: the fs_list host operation called directly", direct),
  row("plugin call, foreground in the host's thread, no slice, no meter (cannot be stopped)", r.foreground!),
  row("plugin call in the host's thread, slice ended by its fuel meter (what the pool uses for fs)", r.inThread!),
  row("  the same on a fresh plugin instance (a run's first call), calls back to back", r.inThreadFresh!),
  row("  the same on a fresh plugin instance after 20 ms idle (made ahead)", r.inThreadAhead!),
  row(
    "plugin call in the host's thread, the fs plugin built without the meter, slice a node:vm timeout (any plugin not built here)",
    r.inVmSlice!,
  ),
  row("plugin call, Extism worker mode (runInWorker: true)", r.extismWorker!),
  row("plugin call, dedicated worker over SharedArrayBuffer + Atomics", r.atomicsWorker!),
  row("  the same on a fresh plugin instance (a run's first call), calls back to back", r.atomicsWorkerFresh!),
  row("  the same on a fresh plugin instance after 20 ms idle (made ahead)", r.atomicsWorkerAhead!),
  row("executeAction fs.list_dir through the pool, calls of one run (one receipt)", r.actionPooled!),
  row("executeAction fs.list_dir through the pool, previews (a fresh instance each)", r.actionPreview!),
  row("start, in the host's thread (a plugin instance from the compiled module)", r.inThreadStart!),
  row("start, Extism worker mode", r.extismWorkerStart!),
  row("start, dedicated worker", r.atomicsWorkerStart!),
])}

What stopping a call costs by itself (an empty script run in a \`node:vm\` context, no plugin):

${table([
  ["how the host's thread is made stoppable", "wall (median)", "CPU (median)"],
  ...[
    ["not at all (the bare script run)", r.stopNone!],
    [
      "a timeout (the slice of a plugin without the meter: a watchdog thread started and joined per call)",
      r.stopTimeout!,
    ],
    ["breakOnSigint (Node's SIGINT helper thread, started and joined per call)", r.stopSigint!],
    ["breakOnSigint while a long-lived thread keeps that helper running", r.stopSigintShared!],
  ].map(([what, x]) => [what as string, ms((x as Timing).ms), ms((x as Timing).cpuMs)]),
])}

A plugin built by this project (the shipped connectors) carries a fuel meter, compiled in at build
time (scripts/build-connectors.mjs: binaryen's \`log-execution\` pass, its import replaced by a
counter in the module): every 1,000 function entries, loop iterations and returns it calls the
host function \`fuel\`, which, like every host function, throws once the call's slice has passed
and so ends the call there. Its call in the host's thread then needs no watchdog: compare its
row with the foreground call's (neither meter nor slice) and with the unmetered build's in a
\`node:vm\` slice. Counting is lost in the noise on a call this small; on longer work it costs
~2.5 ns a point (3× on a bare arithmetic loop, 5–12% on a list_dir of 2,000 entries or a 1 MiB
read, measured in a separate run). The host does not look
for the meter in the code: a connector's wasm is trusted code built here and pinned by sha256, so
a plugin that imports \`fuel\` is believed to call it; one that does not (built elsewhere) keeps
the \`node:vm\` timeout, a watchdog thread per call (the row of the unmetered build). A host
function that itself ran for ever could stop only under the watchdog; the fs ones are the
project's own. The other ways weighed to stop the host's thread: (a) A SIGINT sent at the deadline by one long-lived thread: \`breakOnSigint\` costs next
to nothing while another thread keeps Node's SIGINT helper running (last row), but it is not safe
in this project's processes. \`run\` (withdraw on Ctrl-C) and \`serve\` (stop cleanly) listen for
SIGINT, and the authority calls plugins for previews. \`breakOnSigint\` takes those listeners off
for the call, which sets SIGINT back to its default (exit) while the helper, already running, does
not take it again: a Ctrl-C or the deadline's own SIGINT during a call ends the process (tried: exit
code 130); without a listener, a Ctrl-C would no longer end the process at all. (b) Terminating the host's thread through
the inspector (a worker's \`Session.connectToMainThread\` sending \`Runtime.terminateExecution\`): one
long-lived thread, but the request lands at the main thread's next JavaScript. If the call has
just ended, that is whatever runs next, and V8 drops the rest of that callback: there is no way to
fence it. (c) Fuel added at load time, to any plugin: it would need the plugin's bytes after the
hash check and an instrumenting pass in the host for code nobody here built. (d) One slice for a batch of calls: a
run's calls reach the pool one at a time through \`callWithReceipt\`'s promise, each after the
program's previous turn, so there is nothing to batch unless the receipt check and the connector
call become synchronous.

The pool runs a plugin whose host functions all answer synchronously (fs_read, fs_list,
fs_write: the fs connector) in the host's own thread, each call in a slice of 50 ms, ended by
the plugin's fuel meter or, for a plugin without one, by a \`node:vm\` timeout whose watchdog
thread makes V8 terminate whatever runs when it fires, a spinning wasm loop or a host function
alike (the instance is dropped after either stop). Extism runs the export synchronously inside
that call. The watchdog (a thread started and joined per call, ~70–80 µs of CPU on an idle
machine, more on a busy one, and wall time while the thread waits for a core) is most of what
the unmetered row costs over the metered one. A write waits for the call's end (or the plugin's next
host function call), so that a call stopped at its slice has usually changed nothing: it is made
again in the plugin's worker with the rest of its deadline, and that plugin runs there from then
on; one that had written is stopped with resource_limit_exceeded. Plugins that import
http_request (asynchronous: the email and http connectors) run in a worker thread of their own:
the worker sleeps in \`Atomics.wait\` between calls, a call wakes it through a flag in a growable
SharedArrayBuffer that also carries the message's UTF-8 text, the host blocks in
\`Atomics.wait\` for the worker's next message up to 2 ms and then awaits it with
\`Atomics.waitAsync\`, so its event loop stays free while a plugin runs long, and a host function
blocks the worker while the host answers it; a call past its deadline terminates the thread. In
both, each call starts with Extism's call state reset; the calls of one run (one receipt) share
a plugin instance, and a call of another run, or a preview, gets a fresh one, made ahead once
the thread has been idle for a few ms. A connector starts every call on an empty heap, so a fresh
instance's first call does the same work as any other; what the rows of fresh calls add over
back-to-back calls is mostly the idle gap before them (caches gone cold) and, without the gap,
making the instance in the call. What a plugin allocates in host memory through
Extism's kernel is counted per call and bounded (limits.maxHostMemoryBytes). CPU time is the whole
process's, worker threads included. The machine is shared: 1-minute load average
${loadavg()[0]!.toFixed(1)} when the run ended.`;
writeSection("sandbox-plugin-call", "Stoppable plugin calls", body);
process.stdout.write(body + "\n");
