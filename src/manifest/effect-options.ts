import type { EffectOptions } from "../constraint/index.js";
import type { ManifestSet } from "./manifest-set.js";

/**
 * What the manifests say about each op, as the constraint checks read it: its inputs, those the wrapper resolves,
 * whether it only reads.
 */
export function effectOptionsOf(set: ManifestSet): EffectOptions {
  return {
    inputsOf: (op) => set.actions.get(op)?.manifest.inputs.map((i) => i.name),
    resolvedOf: (op) => Object.keys(set.actions.get(op)?.manifest.resolve?.inputs ?? {}),
    idempotent: (op) => set.actions.get(op)?.manifest.idempotent === true,
  };
}
