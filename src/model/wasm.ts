/**
 * The bit of Node's WebAssembly global countersign uses (manifest checks, the connector host).
 * The project's lib settings (ES2023, no DOM) do not declare it, so it is typed here once.
 */
export interface WasmModule {
  readonly __brand?: "WebAssembly.Module";
}

interface WasmApi {
  compile(bytes: Uint8Array): Promise<WasmModule>;
  Module: {
    new (bytes: Uint8Array): WasmModule;
    imports(module: WasmModule): { module: string; name: string; kind: string }[];
    exports(module: WasmModule): { name: string; kind: string }[];
  };
}

export const wasm: WasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
