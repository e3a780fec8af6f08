import { canonicalJson } from "../constraint/index.js";
import type { AbstractValue } from "../model/index.js";
import type { Json } from "../model/index.js";

/**
 * The finite set of constants every call's value is drawn from, as `{ in: [...] }`; for a list
 * input, the set its elements are drawn from (a constraint on a list applies to each element).
 * Undefined when some value is not a constant set.
 */
export function constantSet(values: (AbstractValue | undefined)[], isList: boolean): { in: Json[] } | undefined {
  const constants: Json[] = [];
  for (const value of values) {
    const parts = isList ? elementsOf(value) : value === undefined ? undefined : [value];
    if (parts === undefined) return undefined;
    for (const part of parts) {
      if (part.kind !== "const") return undefined;
      constants.push(...part.values);
    }
  }
  return { in: [...new Map(constants.map((x) => [canonicalJson(x), x])).values()] };
}

/** What the elements of a list value can be; a constant list contributes its members. */
function elementsOf(value: AbstractValue | undefined): AbstractValue[] | undefined {
  if (value?.kind === "array") return [value.element];
  if (value?.kind !== "const" || !value.values.every(Array.isArray)) return undefined;
  return [{ kind: "const", values: (value.values as Json[][]).flat() }];
}
