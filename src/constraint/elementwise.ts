import type { ValueConstraint } from "../model/constraint.js";

/**
 * Whether an array satisfies `c` exactly when each element does. True for every constraint but
 * `max_length` (which measures the array itself) and an `all` holding one.
 */
export function isElementwise(c: ValueConstraint): boolean {
  if ("max_length" in c) return false;
  return "all" in c ? c.all.every(isElementwise) : true;
}
