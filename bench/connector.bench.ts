// Connector host costs: loading a plugin and calling it, in a worker and in the foreground (what
// countersign uses for the fs plugin, inside a slice), next to calling the same host operation directly. Needs `npm run build`
// first (npm run bench does it): the measurements run over dist/ in a plain node child process.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { packageRoot } from "../src/model/paths.js";
import { table, writeSection } from "./report.js";

if (!existsSync(join(packageRoot, "dist", "src", "connector", "execute-action.js"))) {
  process.stderr.write("bench/connector: run `npm run build` first\n");
  process.exit(1);
}
type Timing = { ms: number; cpuMs: number };
const r = JSON.parse(
  execFileSync(process.execPath, [join(packageRoot, "bench", "connector-measure.mjs")], { encoding: "utf8" }),
) as Record<string, Timing>;
const direct = r.direct!;
const ms = (x: number) => (x >= 1 ? `${x.toFixed(2)} ms` : `${(x * 1000).toFixed(1)} µs`);
const row = (what: string, x: Timing) => [what, ms(x.ms), ms(x.cpuMs), `${(x.cpuMs / direct.cpuMs).toFixed(1)}×`];

const body = `${table([
  ["what", "wall (median)", "CPU (median)", "CPU vs baseline"],
  row("baseline: the plugin's list_dir work as a plain JS function call", direct),
  row("plugin call list_dir, foreground (canned sync fs_list)", r.callForeground!),
  row("plugin call list_dir, worker (runInWorker: true, canned fs_list)", r.callWorker!),
  row("the real fs_list host operation (realpath + readdir, 3 entries)", r.fsList!),
  row(
    "executeAction fs.list_dir as a preview, pooled plugin in the host's thread (a fresh instance each)",
    r.actionPooled!,
  ),
  row("executeAction fs.list_dir, no pool (load + call + close)", r.actionUnpooled!),
  row("plugin load, worker (hash check + compile + worker start)", r.loadWorker!),
  row("plugin load, host's thread (hash check + compile + instance)", r.loadInThread!),
  row("plugin load, foreground (precompiled module)", r.loadForeground!),
])}

A plugin whose host functions all answer synchronously (the fs connector) runs in the host's
thread, each call inside a slice that its fuel meter ends (compiled in by the project's build; a
plugin without the meter gets a \`node:vm\` timeout instead, see "Stoppable plugin calls"); any other
(http_request is asynchronous: the email and http connectors) runs in a worker of its own, as
does one that once ran past its slice. The worker row here is Extism's own worker mode; the
pool's dedicated worker is in "Stoppable plugin calls". Pass a \`PluginPool\` as \`ctx.plugins\`
when a run makes several calls: the calls of one run (one receipt) share a plugin instance, a
preview never does (bench/sandbox-plugin-call.bench.ts measures both).

The plugin's own work is the foreground row less the baseline. The connectors check their JSON as
UTF-8 bytes where Extism's kernel put them and decode a value only when they read it; what they
only pass on (here the path and the listing) is written out as the bytes it came as. Each call
starts on an empty heap (AssemblyScript's stub runtime, a bump allocator: no collector runs).
What is left is mostly Extism's JavaScript side: its per-call bookkeeping and its kernel, which
moves 8 bytes per host call with BigInt addresses (46 host calls for this list_dir). CPU time is
the whole process's (worker threads included); on the shared machine it is the steadier figure
(1-minute load average ${loadavg()[0]!.toFixed(1)} when the run ended).`;
writeSection("connector", "Connector host (Extism)", body);
process.stdout.write(body + "\n");
