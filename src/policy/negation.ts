import { isElementwise } from "../constraint/index.js";
import type { ValueConstraint } from "../model/index.js";

/**
 * `not c`, without a double negation where that is exact: `not (not x)` is x when x is checked
 * element by element (on a list both mean "every element satisfies x"). Deny "not under
 * ~/Sandbox" thus guards "under ~/Sandbox", a shape `implies` can reason about.
 */
export function negation(c: ValueConstraint): ValueConstraint {
  return "not" in c && isElementwise(c.not) ? c.not : { not: c };
}
