import type { EffectOptions } from "../constraint/index.js";
import type { AbstractValue } from "../model/index.js";
import { effectOptionsOf, type ManifestSet } from "../manifest/index.js";

/** What the policy stage reads of the manifests for every decision, worked out once per op. */
export interface ManifestView {
  options: EffectOptions; // what the manifests say about every op's inputs
  listInputs(op: string): ReadonlySet<string>; // the op's inputs whose type is array
  // the inputs the wrapper reads before each call, as the rules see them
  resolved(op: string): ReadonlyMap<string, AbstractValue>;
}

// A loaded manifest set never changes, so its view is kept with it; a reload makes a new set.
const views = new WeakMap<ManifestSet, ManifestView>();

/** The policy's view of `set`: answers per op are worked out on first use and then reused. */
export function manifestView(set: ManifestSet): ManifestView {
  let view = views.get(set);
  if (view === undefined) views.set(set, (view = viewOf(set)));
  return view;
}

function viewOf(set: ManifestSet): ManifestView {
  const perOp = <T>(compute: (op: string) => T): ((op: string) => T) => {
    const known = new Map<string, T>();
    return (op) => {
      if (!known.has(op)) known.set(op, compute(op));
      return known.get(op) as T; // T itself may hold undefined (an op no manifest declares)
    };
  };
  const options = effectOptionsOf(set);
  return {
    options: {
      inputsOf: perOp((op) => options.inputsOf?.(op)),
      resolvedOf: perOp((op) => options.resolvedOf?.(op)),
      idempotent: perOp((op) => options.idempotent?.(op) === true),
    },
    listInputs: perOp(
      (op) =>
        new Set((set.actions.get(op)?.manifest.inputs ?? []).filter((i) => i.type === "array").map((i) => i.name)),
    ),
    resolved: perOp((op) => resolvedInputs(op, set)),
  };
}

/**
 * The inputs the trusted wrapper reads before each call of `op` (manifest `[resolve]`), as the
 * rules see them: unknown data read from the resolve op's result, which the grant holds.
 */
function resolvedInputs(op: string, set: ManifestSet): ReadonlyMap<string, AbstractValue> {
  const action = set.actions.get(op);
  const spec = action?.manifest.resolve;
  if (action === undefined || spec === undefined) return NONE;
  const target = `${action.connector}.${spec.op}`;
  const read: AbstractValue = {
    kind: "unknown",
    provenance: [
      { source: `read by the trusted wrapper with ${target} before each call`, untrusted: true, op: target },
    ],
  };
  return new Map(Object.keys(spec.inputs).map((input) => [input, read]));
}

const NONE: ReadonlyMap<string, AbstractValue> = new Map();
