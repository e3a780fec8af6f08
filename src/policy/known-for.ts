import type { EffectConstraint, ValueConstraint } from "../model/index.js";

/**
 * The value constraints that known effect constraints (guarantees, guards; those whose op
 * matches) put on one argument. Own keys only: an argument named `constructor` must not find
 * Object.prototype's.
 */
export function knownFor(name: string, known: readonly EffectConstraint[]): ValueConstraint[] {
  const found: ValueConstraint[] = [];
  for (const k of known) {
    const c = k.args !== undefined && Object.hasOwn(k.args, name) ? k.args[name] : undefined;
    if (c !== undefined) found.push(c);
  }
  return found;
}
