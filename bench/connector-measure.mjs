// The measurements behind bench/connector.bench.ts, in plain JavaScript over the built dist/.
// They run in a child `node` without tsx: Extism starts its worker from a data: URL whose
// source-map comment Node cannot resolve once tsx (inherited by the worker) enables source maps.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import createPlugin from "@extism/extism";
import { buildWasm } from "../scripts/build-connectors.mjs";
import { fsCapabilities, load, measure, syncHostHandlers, tempDir } from "./sandbox-measure-kit.mjs";

const { connectorContext } = await load("config/connector-context.js");
const { executeAction } = await load("connector/execute-action.js");
const { admitPreview } = await load("connector/admission.js");
const { fsList } = await load("connector/host-fs.js");
const { hostFunctions, hostHandlers, SUCCESS_ANSWERS } = await load("connector/host-functions.js");
const { DEFAULT_LIMITS } = await load("connector/limits.js");
const { checkPlugin, startInThread, startWorker } = await load("connector/load-plugin.js");
const { createPluginPool } = await load("connector/plugin-pool.js");
const { loadManifests } = await load("config/load-manifests.js");

const pkg = new URL("../", import.meta.url).pathname;
const root = tempDir("cs-bench-");
// The folder programs list, beside the data directory (root), which no fs root may hold or lie in.
const files = tempDir("cs-bench-files-");
for (const name of ["a.txt", "b.txt", "c.txt"]) writeFileSync(join(files, name), name);
writeFileSync(join(root, "connections.toml"), `[fs]\nroots = ["${files}"]\n`);

const set = loadManifests(join(pkg, "manifests"));
const connector = set.connectors.get("fs");

const caps = fsCapabilities(files);
const input = JSON.stringify({ path: files });
const state = () => ({ caps, limits: DEFAULT_LIMITS, signal: new AbortController().signal, hostError: null });
// A canned, synchronous fs_list: foreground plugins cannot await a host function, and it isolates
// the cost of the plugin and its bridge from the file system.
const entries = [
  { name: "a.txt", type: "file" },
  { name: "b.txt", type: "file" },
];
const canned = {
  "extism:host/user": {
    ...hostFunctions(state())["extism:host/user"],
    fs_list: (cx) => cx.store(JSON.stringify({ ok: true, entries })),
  },
};
// The baseline: the same work as the plugin's list_dir, as a plain function call.
const direct = (text) =>
  JSON.stringify({ path: JSON.parse(text).path, entries: JSON.parse(JSON.stringify({ ok: true, entries })).entries });
const module = await WebAssembly.compile(readFileSync(connector.wasmPath));
// Extism's worker mode sends every host function call to this thread, the fuel meter's too: it
// runs the connector built without the meter.
await buildWasm(join(pkg, "trusted", "connectors", "fs", "index.ts"), join(root, "fs-unmetered.wasm"), {
  meter: false,
});
const unmetered = await WebAssembly.compile(readFileSync(join(root, "fs-unmetered.wasm")));

const r = {};
r.direct = await measure(() => direct(input), { inner: 2000 });
r.fsList = await measure(() => fsList(caps, files), { inner: 200 });
const handlers = hostHandlers(state());
const fsHandlers = await syncHostHandlers(handlers);
const names = Object.keys(handlers);
r.loadWorker = await measure(async () =>
  (await startWorker(connector, await checkPlugin(connector, DEFAULT_LIMITS, names), names)).close(),
);
r.loadInThread = await measure(async () =>
  (
    await startInThread(connector, await checkPlugin(connector, DEFAULT_LIMITS, names), fsHandlers, SUCCESS_ANSWERS)
  ).close(),
);
r.loadForeground = await measure(async () =>
  (await createPlugin({ wasm: [{ module }] }, { functions: hostFunctions(state()) })).close(),
);
const worker = await createPlugin({ wasm: [{ module: unmetered }] }, { runInWorker: true, functions: canned });
r.callWorker = await measure(() => worker.call("list_dir", input), { inner: 100 });
await worker.close();
const foreground = await createPlugin({ wasm: [{ module }] }, { functions: canned });
r.callForeground = await measure(() => foreground.call("list_dir", input), { inner: 100 });
await foreground.close();
const pool = createPluginPool();
const pooled = connectorContext(root, { plugins: pool });
// list_dir only reads and needs no approval: it is admitted the way a preview is.
const listRoot = () => admitPreview(set, "fs.list_dir", { path: files });
r.actionPooled = await measure(() => executeAction(set, listRoot(), pooled), { inner: 50 });
await pool.close();
r.actionUnpooled = await measure(() => executeAction(set, listRoot(), connectorContext(root)), { samples: 11 });
process.stdout.write(JSON.stringify(r));
process.exit(0);
