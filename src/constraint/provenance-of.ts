import type { AbstractValue, Provenance } from "../model/index.js";

/** Every provenance inside `value`, deduplicated. */
export function provenanceOf(value: AbstractValue): Provenance[] {
  switch (value.kind) {
    case "const":
      return [];
    case "string":
    case "unknown":
      return value.provenance;
    case "array":
      return provenanceOf(value.element);
    case "record":
      return mergeProvenance(Object.values(value.fields).map(provenanceOf));
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
  return `${p.untrusted}:${p.op ?? ""}:${p.source}`;
}

