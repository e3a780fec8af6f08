import type { AbstractValue, Provenance } from "../model/index.js";

// Abstract values are never changed once made, and a program can build a record whose parts are
// shared (`o = { a: o, b: o }` doubled n times): each record's answer is kept, so that a walk
// costs the number of distinct parts, not 2^n.
const ofRecord = new WeakMap<AbstractValue, Provenance[]>();

/** Every provenance inside `value`, deduplicated. */
export function provenanceOf(value: AbstractValue): Provenance[] {
  switch (value.kind) {
    case "const":
      return value.provenance ?? [];
    case "string":
    case "unknown":
      return value.provenance;
    case "array":
      return provenanceOf(value.element);
    case "record": {
      let known = ofRecord.get(value);
      if (known === undefined)
        ofRecord.set(value, (known = mergeProvenance(Object.values(value.fields).map(provenanceOf))));
      return known;
    }
  }
}

/** The union of source lists, deduplicated; a single non-empty list is returned as it is. */
export function mergeProvenance(lists: Provenance[][]): Provenance[] {
  const nonEmpty = lists.filter((l) => l.length > 0);
  if (nonEmpty.length <= 1) return nonEmpty[0] ?? []; // the common case: nothing to merge
  const seen = new Map<string, Provenance>();
  for (const list of nonEmpty) for (const p of list) seen.set(provenanceKey(p), p);
  return [...seen.values()];
}

/** What makes two sources the same one. */
export function provenanceKey(p: Provenance): string {
  return `${p.untrusted}:${p.op ?? ""}:${p.path ?? "$"}:${p.host ?? ""}:${p.source}`;
}
