import { wasm, type WasmModule } from "../model/index.js";

/**
 * The host function of the fuel meter the project's build compiles into its connectors
 * (scripts/build-connectors.mjs, METER_IMPORT): the plugin calls it from "extism:host/user", with
 * no arguments, every so many function entries and loop iterations. In the host's thread it
 * throws once the call's slice has passed, which ends the call where it is; in a worker it does
 * nothing (the worker's thread is stopped instead).
 */
export const METER_FUNCTION = "fuel";

/** Whether a module imports the meter's host function, i.e. was built with the fuel meter. */
export function importsMeter(module: WasmModule): boolean {
  return wasm.Module.imports(module).some(
    (i) => i.module === "extism:host/user" && i.name === METER_FUNCTION && i.kind === "function",
  );
}
