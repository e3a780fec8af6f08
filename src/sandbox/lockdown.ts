import type { QuickJSContext } from "quickjs-emscripten-core";
import { hardeningScript } from "../environment/index.js";
import { CountersignError } from "../model/index.js";

/**
 * Turn a fresh context into the program's realm: the environment's hardening script, the same
 * text the analyzer's test runner builds its realm with, so the program finds exactly the
 * globals and built-ins the analyzer models (everything else removed, the rest frozen). It runs
 * once the host's functions, the bridge and the generated modules have taken what they need, and
 * before any program code. A failure here is a bug of ours, never the program's.
 */
export function lockDown(vm: QuickJSContext): void {
  const result = vm.evalCode(hardeningScript(), "countersign:environment");
  if (result.error !== undefined) {
    const reason: unknown = vm.dump(result.error);
    result.error.dispose();
    throw new CountersignError("internal_error", "sandbox", `the sandbox lockdown failed: ${JSON.stringify(reason)}`);
  }
  result.value.dispose();
}
