import type { AbstractValue, Provenance } from "../../model/index.js";
import { elementPath, fieldPath } from "../../constraint/index.js";

/**
 * An op's result as the program holds it, and each part of it read by a static name (`r.iban`,
 * `r.items[0].iban`): the value object stands for exactly that part, so its op's sources carry
 * the part's path. Only objects made here are views: whatever the analysis builds from a view
 * (a join, a spread, a computed key, a call) is a new object that keeps the view's sources and
 * their paths as they are, coarser than the part it may hold, which is sound. Keyed by identity:
 * abstract values are never changed once made.
 */
const views = new WeakMap<AbstractValue, ReadonlySet<Provenance>>();

/** A trusted call's result: `pathed` are the sources a part read from it narrows (its own op's). */
export function resultView(pathed: readonly Provenance[], others: readonly Provenance[]): AbstractValue {
  return view([...pathed, ...others], new Set(pathed));
}

function view(provenance: Provenance[], pathed: ReadonlySet<Provenance>): AbstractValue {
  const value: AbstractValue = { kind: "unknown", provenance };
  views.set(value, pathed);
  return value;
}

/**
 * `v[key]` when `v` is a view: a view of that part (`[*]` for an index). `length` is left to the
 * caller: an array's length is no element, and a string's is no field.
 */
export function viewPart(v: AbstractValue, key: string, index: boolean): AbstractValue | undefined {
  const pathed = views.get(v);
  if (pathed === undefined || v.kind !== "unknown" || key === "length") return undefined;
  const next = new Set<Provenance>();
  const provenance = v.provenance.map((p) => {
    if (!pathed.has(p)) return p;
    const at = p.path ?? "$";
    const part = { ...p, path: index ? elementPath(at) : fieldPath(at, key) };
    next.add(part);
    return part;
  });
  return view(provenance, next);
}

/** Whether `v` stands for exactly one part of an op's result. */
export function isResultView(v: AbstractValue): boolean {
  return views.has(v);
}
