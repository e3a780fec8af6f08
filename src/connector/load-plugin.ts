import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import createPlugin, { type Plugin } from "@extism/extism";
import type { LoadedConnector } from "../manifest/manifest-set.js";
import { CountersignError } from "../model/errors.js";
import { declaredMemoryPages } from "./declared-memory.js";
import { hostFunctions, type CallState } from "./host-functions.js";
import type { Limits } from "./limits.js";
import { wasm, type WasmModule } from "./wasm.js";

/**
 * Load a connector's plugin in a worker thread. The bytes that get compiled are the bytes that
 * were hashed: a mismatch with the manifest's pin is `hash_mismatch` and nothing runs. A module
 * that may grow its memory beyond the limit (or without any bound) is refused too.
 */
export async function loadPlugin(connector: LoadedConnector, limits: Limits, state: CallState): Promise<Plugin> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(connector.wasmPath);
  } catch (err) {
    throw new CountersignError("connector_error", "connector", `${connector.name}: cannot read ${connector.wasmPath}`, { cause: err });
  }
  const actual = createHash("sha256").update(bytes).digest("hex");
  if (actual !== connector.manifest.sha256) {
    throw new CountersignError("hash_mismatch", "connector", `${connector.name}: ${connector.wasmPath} does not match the sha256 pinned in ${connector.file}`, {
      details: { wasm: connector.wasmPath, expected: connector.manifest.sha256, actual },
    });
  }
  let module: WasmModule;
  try {
    module = await wasm.compile(bytes);
  } catch (err) {
    throw new CountersignError("connector_error", "connector", `${connector.name}: not a valid wasm module: ${(err as Error).message}`);
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
  return createPlugin({ wasm: [{ module }] }, { runInWorker: true, useWasi: false, allowedHosts: [], functions: hostFunctions(state) });
}
