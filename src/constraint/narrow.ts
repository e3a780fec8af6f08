import type { AbstractValue } from "../model/index.js";
import type { ValueConstraint } from "../model/index.js";
import type { Json } from "../model/index.js";
import { isAddress, shapeMayBe } from "./email-address.js";
import { isElementwise } from "./elementwise.js";
import { satisfies } from "./satisfies.js";

/**
 * What is left of `v` once `c` is known to hold (a run-time-enforced guarantee or guard): a value
 * whose concretization contains every member of `v` that satisfies `c`. Refines what it can and
 * returns `v` otherwise:
 * - constants: those that satisfy `c`;
 * - a partly known string: under `eq`/`in`, the listed strings it could be (not when an address
 *   is listed that it could match: any case of it would do); a longer `prefix` or `suffix`;
 * - an array: `max_length` and `min_length` bound its length; `elements` and the element-wise
 *   constraints narrow the element;
 * - a record: `fields` narrows each field it lists;
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
  if (v.kind === "array") return narrowArray(v, c);
  if (v.kind === "string") return narrowString(v, c);
  if (v.kind === "record" && "fields" in c) {
    const fields = Object.fromEntries(
      Object.entries(v.fields).map(([key, f]) => [key, Object.hasOwn(c.fields, key) ? narrow(f, c.fields[key]!) : f]),
    );
    return { kind: "record", fields };
  }
  return v;
}

function narrowArray(v: Extract<AbstractValue, { kind: "array" }>, c: ValueConstraint): AbstractValue {
  const { min, max } = v.length;
  if ("max_length" in c) {
    const bound = max === null ? c.max_length : Math.min(max, c.max_length);
    return bound >= min ? { ...v, length: { min, max: bound } } : v;
  }
  if ("min_length" in c) {
    const bound = Math.max(min, c.min_length);
    return max === null || bound <= max ? { ...v, length: { min: bound, max } } : v;
  }
  if ("elements" in c) return { ...v, element: narrow(v.element, c.elements) };
  if (!isElementwise(c)) return v; // an array either passes as it is or not at all
  return { ...v, element: narrow(v.element, c) }; // every other constraint is element-wise
}

function narrowString(v: Extract<AbstractValue, { kind: "string" }>, c: ValueConstraint): AbstractValue {
  if ("prefix" in c) return c.prefix.startsWith(v.prefix) ? { ...v, prefix: c.prefix } : v;
  if ("suffix" in c) return c.suffix.endsWith(v.suffix) ? { ...v, suffix: c.suffix } : v;
  const listed: readonly Json[] = "eq" in c ? [c.eq] : "in" in c ? c.in : [];
  const strings = listed.filter((x): x is string => typeof x === "string");
  const kept = strings.filter((x) => shapeMayBe(x, v.prefix, v.suffix));
  // A listed address stands for every string of its canonical form, which no constant set lists.
  return kept.length > 0 && !kept.some(isAddress) ? { kind: "const", values: kept } : v;
}
