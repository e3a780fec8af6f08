import type { AbstractValue } from "../model/abstract.js";
import type { ValueConstraint } from "../model/constraint.js";
import type { Json } from "../model/json.js";
import { satisfies } from "./satisfies.js";
import { isShapeMember } from "./string-shape.js";

/**
 * What is left of `v` once `c` is known to hold (a run-time-enforced guarantee or guard): a value
 * whose concretization contains every member of `v` that satisfies `c`. Refines what it can and
 * returns `v` otherwise:
 * - constants: those that satisfy `c`;
 * - a partly known string under `eq`/`in`: the listed strings it could be;
 * - an array: `max_length` caps its length; element-wise constraints narrow the element;
 * - `all`: one conjunct after another.
 * `unknown` stays unknown: it may be a list, and a list of members also satisfies `in` — so
 * `in` cannot turn it into the listed constants. Give list inputs an array abstract value and
 * string inputs a string one to have them narrowed. When nothing is left, `v` is returned (an
 * abstract value cannot be empty); `holds` on it then still answers soundly.
 */
export function narrow(v: AbstractValue, c: ValueConstraint): AbstractValue {
  if ("all" in c) return c.all.reduce(narrow, v);
  if (v.kind === "const") {
    const kept = v.values.filter((x) => satisfies(c, x));
    return kept.length > 0 ? { kind: "const", values: kept } : v;
  }
  if (v.kind === "array") {
    if ("max_length" in c) {
      const max = v.length.max === null ? c.max_length : Math.min(v.length.max, c.max_length);
      return max >= v.length.min ? { ...v, length: { min: v.length.min, max } } : v;
    }
    return { ...v, element: narrow(v.element, c) }; // every other constraint is element-wise
  }
  if (v.kind === "string") {
    const listed: readonly Json[] = "eq" in c ? [c.eq] : "in" in c ? c.in : [];
    const kept = listed.filter((x) => typeof x === "string" && isShapeMember(x, v.prefix, v.suffix));
    return kept.length > 0 ? { kind: "const", values: kept } : v;
  }
  return v;
}
