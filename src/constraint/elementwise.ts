import type { ValueConstraint } from "../model/index.js";

/**
 * Whether an array satisfies `c` exactly when each element does: true for every constraint but
 * those that look at the value itself (`max_length`, `min_length`, `type`, `sha256`, `elements`, `fields`, `json`,
 * `at`)
 * and an `all` holding one.
 */
export function isElementwise(c: ValueConstraint): boolean {
  if ("all" in c) return c.all.every(isElementwise);
  return !WHOLE_VALUE.some((key) => key in c);
}

const WHOLE_VALUE = ["max_length", "min_length", "type", "sha256", "elements", "fields", "json", "at"] as const;
