// The measurements behind bench/sandbox-plugin-call.bench.ts, in plain JavaScript over dist/ (a
// child `node` without tsx, whose loader hooks Extism's own worker cannot start under).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createContext, Script } from "node:vm";
import { Worker } from "node:worker_threads";
import createPlugin from "@extism/extism";
import { buildWasm } from "../scripts/build-connectors.mjs";
import { fsCapabilities, load, measure, measureAfter, syncHostHandlers, tempDir } from "./sandbox-measure-kit.mjs";

const { connectorContext } = await load("config/connector-context.js");
const { executeAction } = await load("connector/execute-action.js");
const { admitCall, admitPreview } = await load("connector/admission.js");
const { VerifiedReceipt } = await load("receipt/verified-receipt.js");
const { fsList } = await load("connector/host-fs.js");
const { hostFunctions, hostHandlers } = await load("connector/host-functions.js");
const { DEFAULT_LIMITS } = await load("connector/limits.js");
const { createPluginPool } = await load("connector/plugin-pool.js");
const { PluginWorker } = await load("connector/plugin-worker.js");
const { InThreadPlugin } = await load("connector/plugin-in-thread.js");
const { IN_THREAD_SLICE_MS } = await load("connector/plugin-pool.js");
const { loadManifests } = await load("config/load-manifests.js");

const pkg = new URL("../", import.meta.url).pathname;
const root = tempDir("cs-bench-plugin-");
// The folder programs list, beside the data directory (root), which no fs root may hold or lie in.
const files = tempDir("cs-bench-files-");
for (const name of ["a.txt", "b.txt", "c.txt"]) writeFileSync(join(files, name), name);
writeFileSync(join(root, "connections.toml"), `[fs]\nroots = ["${files}"]\n`);
const set = loadManifests(join(pkg, "manifests"));
const connector = set.connectors.get("fs");
const module = await WebAssembly.compile(readFileSync(connector.wasmPath));
// The same connector built without the fuel meter, as a plugin the project did not build would be.
const unmeteredPath = join(root, "fs-unmetered.wasm");
await buildWasm(join(pkg, "trusted", "connectors", "fs", "index.ts"), unmeteredPath, { meter: false });
const unmetered = await WebAssembly.compile(readFileSync(unmeteredPath));
const caps = fsCapabilities(files);
const input = JSON.stringify({ path: files });
// Every variant answers fs_list with the real host operation (realpath + readdir).
const state = { caps, limits: DEFAULT_LIMITS, signal: new AbortController().signal, hostError: null };

const r = {};
// Baseline: the host operation the plugin's list_dir asks for, called directly.
r.direct = await measure(() => fsList(caps, files), { inner: 200 });

// Foreground in the host's own thread with no slice and no meter: cheapest, but a spinning plugin
// would block the process for ever. The fs host functions answer synchronously, as a plugin in
// this thread needs.
const handlers = hostHandlers(state);
const fsHandlers = await syncHostHandlers(handlers);
const syncFunctions = Object.fromEntries(
  Object.entries(fsHandlers).map(([name, handle]) => [name, (cx, offset) => cx.store(handle(cx.read(offset).text()))]),
);
const foreground = await createPlugin(
  { wasm: [{ module: unmetered }] },
  { useWasi: false, functions: { "extism:host/user": syncFunctions } },
);
r.foreground = await measure(() => foreground.call("list_dir", input), { inner: 100 });
await foreground.close();

// The shipped (metered) plugin in a slice its fuel meter ends, with Extism's call state reset and
// host memory counted per call: what the pool runs the fs plugins with. Then the unmetered build
// inside a node:vm timeout (a watchdog thread per call): what the pool runs any other plugin with.
const inThread = await InThreadPlugin.create(module, fsHandlers);
const inVmSlice = await InThreadPlugin.create(unmetered, fsHandlers);
if (!inThread.metered || inVmSlice.metered)
  throw new Error("the shipped fs plugin must have the fuel meter, its unmetered build not");
r.inVmSlice = await measure(
  () => inVmSlice.call("list_dir", input, IN_THREAD_SLICE_MS, false, DEFAULT_LIMITS.maxHostMemoryBytes),
  { inner: 100 },
);
await inVmSlice.close();
r.inThreadStart = await measure(async () => (await InThreadPlugin.create(module, fsHandlers)).close());
r.inThread = await measure(
  () => inThread.call("list_dir", input, IN_THREAD_SLICE_MS, false, DEFAULT_LIMITS.maxHostMemoryBytes),
  { inner: 100 },
);
r.inThreadFresh = await measure(
  () => inThread.call("list_dir", input, IN_THREAD_SLICE_MS, true, DEFAULT_LIMITS.maxHostMemoryBytes),
  { inner: 50 },
);
const pause = () => new Promise((resolve) => setTimeout(resolve, 20));
r.inThreadAhead = await measureAfter(pause, () =>
  inThread.call("list_dir", input, IN_THREAD_SLICE_MS, true, DEFAULT_LIMITS.maxHostMemoryBytes),
);
await inThread.close();

// Extism's own worker mode (what the pool used before): stoppable, a message round trip per call.
// Its host function calls cross to this thread, the meter's too: it runs the unmetered build.
r.extismWorkerStart = await measure(
  async () =>
    (
      await createPlugin(
        { wasm: [{ module: unmetered }] },
        { runInWorker: true, useWasi: false, functions: hostFunctions(state) },
      )
    ).close(),
  { samples: 7 },
);
const extismWorker = await createPlugin(
  { wasm: [{ module: unmetered }] },
  { runInWorker: true, useWasi: false, functions: hostFunctions(state) },
);
r.extismWorker = await measure(() => extismWorker.call("list_dir", input), { inner: 50 });
await extismWorker.close();

// A dedicated worker driven over SharedArrayBuffer + Atomics (what the pool uses for plugins that
// import http_request, and for one that ran past its slice in the host's thread).
const answer = (name, request) => handlers[name](request);
r.atomicsWorkerStart = await measure(
  async () => (await PluginWorker.start(module, Object.keys(handlers), performance.now() + 30_000)).close(),
  { samples: 7 },
);
const atomicsWorker = await PluginWorker.start(module, Object.keys(handlers), performance.now() + 30_000);
r.atomicsWorker = await measure(
  () =>
    atomicsWorker.call("list_dir", input, performance.now() + 10_000, answer, false, DEFAULT_LIMITS.maxHostMemoryBytes),
  { inner: 100 },
);
// The first call of a run: the worker replaces the instance an earlier run used.
r.atomicsWorkerFresh = await measure(
  () =>
    atomicsWorker.call("list_dir", input, performance.now() + 10_000, answer, true, DEFAULT_LIMITS.maxHostMemoryBytes),
  { inner: 50 },
);
// The same when the worker was idle before it (as between runs): it made the fresh instance ahead.
r.atomicsWorkerAhead = await measureAfter(pause, () =>
  atomicsWorker.call("list_dir", input, performance.now() + 10_000, answer, true, DEFAULT_LIMITS.maxHostMemoryBytes),
);
await atomicsWorker.close();

// The whole action through the pool (manifest, capabilities, interpolation, the call): the calls
// of one run, under one receipt (made directly, as the connector tests do), and previews, each on
// an instance of its own.
const grants = [
  { op: "fs.list_dir", connector: { name: "fs", sha256: connector.manifest.sha256 }, args: {}, count: { max: null } },
];
const receipt = new VerifiedReceipt("bench", {
  iss: "bench",
  aud: "countersign-runner",
  sub: "bench",
  iat: 0,
  nbf: 0,
  exp: 4_102_444_800,
  jti: "A".repeat(22),
  program: { sha256: "0".repeat(64), entry: "bench.ts" },
  decision: "auto_approved",
  policy: { sha256: "0".repeat(64) },
  grants,
  across: [],
});
const pool = createPluginPool();
const pooled = connectorContext(root, { plugins: pool });
const inRun = () => executeAction(set, admitCall(receipt, set, "fs.list_dir", { path: files }), pooled);
await inRun();
r.actionPooled = await measure(inRun, { inner: 50 });
const preview = () => executeAction(set, admitPreview(set, "fs.list_dir", { path: files }), pooled);
r.actionPreview = await measure(preview, { inner: 20 });
await pool.close();

// What stopping a call costs apart from the call: an empty script run in a node:vm context, bare;
// with a timeout (what the slice uses: Node starts and joins a watchdog thread per run); with
// breakOnSigint (Node's SIGINT helper thread, started and joined per run); and with
// breakOnSigint while a long-lived thread keeps that helper running (a worker parked in a script
// of its own with breakOnSigint), the only way found to stop the host's thread from another
// thread without a thread per call: that thread would send the SIGINT at the deadline.
const sliceContext = createContext({});
const empty = new Script("0");
r.stopNone = await measure(() => empty.runInContext(sliceContext), { inner: 200 });
r.stopTimeout = await measure(() => empty.runInContext(sliceContext, { timeout: IN_THREAD_SLICE_MS }), { inner: 200 });
r.stopSigint = await measure(() => empty.runInContext(sliceContext, { breakOnSigint: true }), { inner: 200 });
const parked = new Int32Array(new SharedArrayBuffer(8));
const keeper = new Worker(new URL("./sigint-keeper-worker.mjs", import.meta.url), { workerData: parked });
while (Atomics.load(parked, 1) === 0) await new Promise((resolve) => setTimeout(resolve, 5));
await new Promise((resolve) => setTimeout(resolve, 20)); // it is inside its script by now
r.stopSigintShared = await measure(() => empty.runInContext(sliceContext, { breakOnSigint: true }), { inner: 200 });
Atomics.store(parked, 0, 1);
Atomics.notify(parked, 0);
await new Promise((resolve) => keeper.once("exit", resolve));
process.stdout.write(JSON.stringify(r));
process.exit(0);
