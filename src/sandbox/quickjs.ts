import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import releaseSync from "@jitl/quickjs-wasmfile-release-sync";
import { QuickJSWASMModule, type EmscriptenModuleLoaderOptions, type QuickJSSyncVariant } from "quickjs-emscripten-core";

const PAGE = 64 * 1024;
/** The QuickJS build declares 16 MiB of initial memory; an instance cannot start with less. */
export const MIN_MEMORY_BYTES = 256 * PAGE;

// The package's types describe its CommonJS build; Node's ESM import gives the variant itself.
const RELEASE_SYNC = ("default" in releaseSync ? releaseSync.default : releaseSync) as QuickJSSyncVariant;

// The bit of Node's WebAssembly global used here (the project's lib settings do not declare it).
type WasmImports = Parameters<NonNullable<EmscriptenModuleLoaderOptions["instantiateWasm"]>>[0];
type WasmInstance = Parameters<Parameters<NonNullable<EmscriptenModuleLoaderOptions["instantiateWasm"]>>[1]>[0];
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: WasmImports) => WasmInstance;
  Memory: new (descriptor: { initial: number; maximum: number }) => NonNullable<EmscriptenModuleLoaderOptions["wasmMemory"]>;
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
  while (typeof current !== "function" && typeof current === "object" && current !== null && "default" in current) current = current.default;
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
    compiled: new wasm.Module(readFileSync(createRequire(import.meta.url).resolve("@jitl/quickjs-wasmfile-release-sync/wasm"))),
    FFI,
  }));
  return parts;
}

/**
 * A fresh QuickJS instance with a linear memory of its own that cannot grow past `memoryBytes`:
 * QuickJS's own memory limit does not stop every large allocation, the memory's maximum does.
 * Nothing is shared with another run but the compiled code.
 */
export async function newQuickJS(memoryBytes: number): Promise<QuickJSWASMModule> {
  const { compiled, load, FFI } = await sharedParts();
  const quiet = () => {}; // the engine's own prints (an abort message after a trap) are not the program's output
  const options = {
    wasmMemory: new wasm.Memory({ initial: 256, maximum: Math.max(256, Math.floor(memoryBytes / PAGE)) }),
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
  return new QuickJSWASMModule(module, new FFI(module));
}
