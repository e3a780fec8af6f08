import { wasm, type WasmModule } from "../model/index.js";

/**
 * The largest maximum (in 64 KiB pages) declared by the memories a wasm module defines, or null
 * when one of them declares no maximum or the module imports a memory (bounded by someone else).
 * Extism 1.0.3 has no memory option, so this declared bound is the one that holds at run time:
 * memory.grow beyond it fails inside the plugin.
 */
export function declaredMemoryPages(module: WasmModule, bytes: Uint8Array): number | null {
  if (wasm.Module.imports(module).some((i) => i.kind === "memory")) return null;
  let pos = 8; // magic and version; the module already compiled, so the layout is well-formed
  const leb = (): number => {
    let result = 0;
    let shift = 0;
    for (;;) {
      const byte = bytes[pos++]!;
      result += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7;
    }
  };
  while (pos < bytes.length) {
    const id = bytes[pos++]!;
    const size = leb();
    const end = pos + size;
    if (id === 5) {
      let largest = 0;
      for (let count = leb(); count > 0; count--) {
        const flags = leb();
        leb(); // minimum
        if ((flags & 1) === 0) return null;
        largest = Math.max(largest, leb());
      }
      return largest;
    }
    pos = end;
  }
  return 0;
}
