import type { EffectConstraint } from "./constraint.js";

/**
 * A contract helper programs may import from `trusted/<connector>/contracts`: a thin builder over
 * the constraint language. The analyzer calls `build` with statically evaluated arguments; the
 * API generator writes a declaration from `params` and `doc`.
 */
export interface ContractHelper {
  name: string;
  doc: string;
  params: { name: string; type: string }[]; // TypeScript type text, e.g. "string[]"
  build: (...args: never[]) => EffectConstraint;
}
