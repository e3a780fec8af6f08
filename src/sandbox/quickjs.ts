import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import releaseSync from "@jitl/quickjs-wasmfile-release-sync";
import {
  QuickJSWASMModule,
  type EmscriptenModuleLoaderOptions,
  type QuickJSSyncVariant,
} from "quickjs-emscripten-core";

const PAGE = 64 * 1024;
/** The QuickJS build declares 16 MiB of initial memory; an instance cannot start with less. */
export const MIN_MEMORY_BYTES = 256 * PAGE;

// The package's types describe its CommonJS build; Node's ESM import gives the variant itself.
const RELEASE_SYNC = ("default" in releaseSync ? releaseSync.default : releaseSync) as QuickJSSyncVariant;

// The bit of Node's WebAssembly global used here (the project's lib settings do not declare it).
type WasmImports = Parameters<NonNullable<EmscriptenModuleLoaderOptions["instantiateWasm"]>>[0];
type WasmInstance = Parameters<Parameters<NonNullable<EmscriptenModuleLoaderOptions["instantiateWasm"]>>[1]>[0];
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: WasmImports) => WasmInstance;
  Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory;
}
const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

type Loader = Extract<Awaited<ReturnType<QuickJSSyncVariant["importModuleLoader"]>>, (...args: never[]) => unknown>;
interface Parts {
  compiled: object;
  load: Loader;
  FFI: Awaited<ReturnType<QuickJSSyncVariant["importFFI"]>>;
}

/** The loader export, however many `default` layers the module system wrapped it in. */
function loaderOf(value: unknown): Loader {
  let current = value;
  while (typeof current !== "function" && typeof current === "object" && current !== null && "default" in current)
    current = current.default;
  return current as Loader;
}
let parts: Promise<Parts> | undefined;

/**
 * What every instance shares: the compiled WebAssembly module and the build's loader and FFI
 * classes, loaded once per process (the library would import them again for every instance).
 */
function sharedParts(): Promise<Parts> {
  parts ??= Promise.all([RELEASE_SYNC.importModuleLoader(), RELEASE_SYNC.importFFI()]).then(([loader, FFI]) => ({
    load: loaderOf(loader),
    compiled: new wasm.Module(
      readFileSync(createRequire(import.meta.url).resolve("@jitl/quickjs-wasmfile-release-sync/wasm")),
    ),
    FFI,
  }));
  return parts;
}

/** A QuickJS instance of one run; `release` once the run has disposed everything in it. */
export interface QuickJSInstance {
  module: QuickJSWASMModule;
  release(): void;
}

// Linear memories of finished runs by maximum pages, to be zeroed and used again. A new 16 MiB
// memory per run makes V8 collect its whole heap (the TypeScript compiler included) every few
// runs; zeroing one costs less than that.
const spare = new Map<number, WasmMemory[]>();
const SPARE_PER_SIZE = 4;

function takeMemory(maximum: number): WasmMemory {
  const memory = spare.get(maximum)?.pop();
  if (memory === undefined) return new wasm.Memory({ initial: 256, maximum });
  zeroFill(Buffer.from(memory.buffer)); // nothing of the earlier run survives: as new as a fresh one
  return memory;
}

const CHUNK = 64 * 1024;
const ZEROS = Buffer.alloc(CHUNK);

/**
 * Zero `bytes` (a whole number of 64 KiB pages). A run writes to few of its memory's pages, so
 * each page is first compared with zeros (memcmp reads far faster than a fill writes) and only
 * the pages that differ are filled.
 */
function zeroFill(bytes: Buffer): void {
  for (let at = 0; at < bytes.length; at += CHUNK) {
    if (bytes.compare(ZEROS, 0, CHUNK, at, at + CHUNK) !== 0) bytes.fill(0, at, at + CHUNK);
  }
}

function giveBack(maximum: number, memory: WasmMemory): void {
  if (memory.buffer.byteLength !== MIN_MEMORY_BYTES) return; // it grew and cannot shrink: let it go
  const list = spare.get(maximum) ?? [];
  if (list.length < SPARE_PER_SIZE) list.push(memory);
  spare.set(maximum, list);
}

/**
 * A fresh QuickJS instance with a linear memory of its own that cannot grow past `memoryBytes`:
 * QuickJS's own memory limit does not stop every large allocation, the memory's maximum does.
 * Nothing is shared with another run but the compiled code; a memory another run used is zeroed
 * before it is handed out again.
 */
export async function newQuickJS(memoryBytes: number): Promise<QuickJSInstance> {
  const { compiled, load, FFI } = await sharedParts();
  const maximum = Math.max(256, Math.floor(memoryBytes / PAGE));
  const wasmMemory = takeMemory(maximum);
  const quiet = () => {}; // the engine's own prints (an abort message after a trap) are not the program's output
  const options = {
    wasmMemory: wasmMemory as NonNullable<EmscriptenModuleLoaderOptions["wasmMemory"]>,
    print: quiet,
    printErr: quiet,
    instantiateWasm(imports: WasmImports, onSuccess: (instance: WasmInstance) => void) {
      const instance = new wasm.Instance(compiled, imports);
      onSuccess(instance);
      return instance.exports;
    },
  };
  const module = await load(options);
  module.type = "sync";
  let released = false;
  return {
    module: new QuickJSWASMModule(module, new FFI(module)),
    release() {
      if (!released) giveBack(maximum, wasmMemory);
      released = true;
    },
  };
}
