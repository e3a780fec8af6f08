import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { LoadedConnector } from "../manifest/index.js";
import { CountersignError } from "../model/index.js";
import { declaredMemoryPages } from "./declared-memory.js";
import type { HostHandler, SuccessAnswer } from "./host-functions.js";
import type { Limits } from "./limits.js";
import { METER_FUNCTION } from "./meter.js";
import { wasm, type WasmModule } from "../model/index.js";
import { InThreadPlugin } from "./plugin-in-thread.js";
import { PluginWorker } from "./plugin-worker.js";

/** The Extism kernel functions a plugin may import (all but http_request and http_status_code). */
const KERNEL = new Set([
  "alloc",
  "free",
  "length",
  "length_unsafe",
  "load_u8",
  "load_u64",
  "store_u8",
  "store_u64",
  "input_offset",
  "input_length",
  "input_load_u8",
  "input_load_u64",
  "output_set",
  "error_set",
  "config_get",
  "var_get",
  "var_set",
  "log_warn",
  "log_info",
  "log_debug",
  "log_error",
]);

// Starting a worker takes tens of ms, far more on a busy machine; a call's own timeout may be much shorter.
const START_TIMEOUT_MS = 30_000;

/** A connector's plugin, checked and compiled, and the host functions it imports (the fuel meter's aside). */
export interface CheckedPlugin {
  module: WasmModule;
  imports: string[];
}

/**
 * Whether the host offers a plugin `name` from "extism:host/user": one of `hostNames`, or the fuel meter's function.
 */
function offered(name: string, hostNames: readonly string[]): boolean {
  return name === METER_FUNCTION || hostNames.includes(name);
}

/**
 * Read, check and compile a connector's plugin. The bytes that get compiled are the bytes that
 * were hashed: a mismatch with the manifest's pin is `hash_mismatch` and nothing runs. A module
 * that imports what the host does not offer (`hostNames` and Extism's kernel), or that may grow
 * its memory beyond the limit (or without any bound), is refused too.
 */
export async function checkPlugin(
  connector: LoadedConnector,
  limits: Limits,
  hostNames: readonly string[],
): Promise<CheckedPlugin> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(connector.wasmPath);
  } catch (err) {
    throw new CountersignError("connector_error", "connector", `${connector.name}: cannot read ${connector.wasmPath}`, {
      cause: err,
    });
  }
  const actual = createHash("sha256").update(bytes).digest("hex");
  if (actual !== connector.manifest.sha256) {
    throw new CountersignError(
      "hash_mismatch",
      "connector",
      `${connector.name}: ${connector.wasmPath} does not match the sha256 pinned in ${connector.file}`,
      {
        details: { wasm: connector.wasmPath, expected: connector.manifest.sha256, actual },
      },
    );
  }
  let module: WasmModule;
  try {
    module = await wasm.compile(bytes);
  } catch (err) {
    throw new CountersignError(
      "connector_error",
      "connector",
      `${connector.name}: not a valid wasm module: ${(err as Error).message}`,
    );
  }
  // An import the host cannot satisfy would only fail inside the worker: check them here, with an
  // error that names it. Extism's own http_request is left out on purpose.
  const imports = wasm.Module.imports(module);
  const missing = imports.find(
    (i) =>
      !(i.module === "extism:host/env"
        ? KERNEL.has(i.name)
        : i.module === "extism:host/user" && offered(i.name, hostNames)),
  );
  if (missing !== undefined) {
    throw new CountersignError(
      "connector_error",
      "connector",
      `${connector.name}: imports ${missing.module} ${missing.name}, which the host does not provide`,
      {
        details: { import: `${missing.module}/${missing.name}` },
      },
    );
  }
  const pages = declaredMemoryPages(module, bytes);
  if (pages === null || pages > limits.maxMemoryPages) {
    throw new CountersignError(
      "resource_limit_exceeded",
      "connector",
      `${connector.name}: the module must declare a maximum memory of at most ${limits.maxMemoryPages} pages (declares ${pages ?? "none"})`,
      { details: { declared_pages: pages, limit_pages: limits.maxMemoryPages } },
    );
  }
  return {
    module,
    imports: imports.filter((i) => i.module === "extism:host/user" && i.name !== METER_FUNCTION).map((i) => i.name),
  };
}

/** Start a checked plugin in a worker thread of its own (see plugin-worker.ts), with host functions `hostNames`. */
export async function startWorker(
  connector: LoadedConnector,
  plugin: CheckedPlugin,
  hostNames: readonly string[],
): Promise<PluginWorker> {
  try {
    return await PluginWorker.start(plugin.module, [...hostNames], performance.now() + START_TIMEOUT_MS);
  } catch (err) {
    throw failedToStart(connector, err);
  }
}

/**
 * Instantiate a checked plugin in the host's thread (see plugin-in-thread.ts); `handlers` must all answer
 * synchronously.
 */
export async function startInThread(
  connector: LoadedConnector,
  plugin: CheckedPlugin,
  handlers: Record<string, HostHandler>,
  answers: Readonly<Record<string, SuccessAnswer>>,
): Promise<InThreadPlugin> {
  try {
    return await InThreadPlugin.create(plugin.module, handlers, answers);
  } catch (err) {
    throw failedToStart(connector, err);
  }
}

function failedToStart(connector: LoadedConnector, err: unknown): CountersignError {
  return new CountersignError(
    "connector_error",
    "connector",
    `${connector.name}: the plugin failed to start: ${(err as Error).message}`,
  );
}
