import { matchOp, narrow } from "../constraint/index.js";
import type { CountRange } from "../model/abstract.js";
import type { EffectConstraint } from "../model/constraint.js";
import type { Effect } from "../model/facts.js";
import type { ManifestSet } from "../manifest/manifest-set.js";

/**
 * What is known about an effect once `known` holds at run time (proven or enforced guarantees,
 * guards): every matching constraint narrows the arguments, and a count bound on a matching op
 * pattern caps the effect's count (an effect is part of that pattern's total).
 */
export function narrowEffect(effect: Effect, known: readonly EffectConstraint[]): Effect {
  let args = effect.args;
  let count = effect.count;
  for (const c of known) {
    if (!matchOp(c.op, effect.op)) continue;
    for (const [name, constraint] of Object.entries(c.args ?? {})) {
      const value = args[name];
      if (value !== undefined) args = { ...args, [name]: narrow(value, constraint) };
    }
    if (c.count !== undefined) count = capCount(count, c.count.max);
  }
  return args === effect.args && count === effect.count ? effect : { ...effect, args, count };
}

/**
 * The total count of the effects whose op matches `pattern`: the sum of their ranges, capped by
 * any known count bound whose pattern covers every one of them.
 */
export function totalCount(effects: readonly Effect[], pattern: string, known: readonly EffectConstraint[]): CountRange {
  const members = effects.filter((e) => matchOp(pattern, e.op));
  let total: CountRange = { min: 0, max: 0 };
  for (const e of members) {
    total = { min: total.min + e.count.min, max: total.max === null || e.count.max === null ? null : total.max + e.count.max };
  }
  for (const c of known) {
    if (c.count !== undefined && members.every((e) => matchOp(c.op, e.op))) total = capCount(total, c.count.max);
  }
  return total;
}

function capCount(range: CountRange, max: number): CountRange {
  return { min: Math.min(range.min, max), max: range.max === null ? max : Math.min(range.max, max) };
}

/** An optional input the program does not pass is null, for rules and grants alike. */
export function withAbsentInputs(effect: Effect, set: ManifestSet): Effect {
  const missing = (set.actions.get(effect.op)?.manifest.inputs ?? []).filter((i) => !(i.name in effect.args));
  if (missing.length === 0) return effect;
  const absent = Object.fromEntries(missing.map((i) => [i.name, { kind: "const" as const, values: [null] }]));
  return { ...effect, args: { ...effect.args, ...absent } };
}
