import type { QuickJSContext } from "quickjs-emscripten-core";
import { CountersignError } from "../model/index.js";
import { hostModules, type SandboxApi } from "./host-modules.js";
import { lockDown } from "./lockdown.js";

/**
 * The program's realm, in a context whose host functions and bridge are in place: the generated
 * modules the program imports (evaluated now, so that its imports find them by name, and taking
 * what they use first; the loader offers no other), then the lockdown.
 */
export function setUpRealm(vm: QuickJSContext, api: SandboxApi, imports: ReadonlySet<string>): void {
  for (const [name, source] of hostModules(api)) {
    if (!imports.has(name)) continue;
    const result = vm.evalCode(source, name, { type: "module" });
    if (result.error !== undefined) {
      result.error.dispose();
      throw new CountersignError("internal_error", "sandbox", `the sandbox module ${name} failed to load`);
    }
    result.value.dispose();
  }
  lockDown(vm);
}
