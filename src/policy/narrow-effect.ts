import { canonicalAbstract, matchOp, narrow } from "../constraint/index.js";
import type { AbstractValue, CountRange, Provenance } from "../model/index.js";
import type { EffectConstraint } from "../model/index.js";
import type { Effect } from "../model/index.js";
import type { ManifestSet } from "../manifest/index.js";
import type { ActionInput } from "../manifest/index.js";

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
export function totalCount(
  effects: readonly Effect[],
  pattern: string,
  known: readonly EffectConstraint[],
): CountRange {
  const members = effects.filter((e) => matchOp(pattern, e.op));
  let total: CountRange = { min: 0, max: 0 };
  for (const e of members) {
    total = {
      min: total.min + e.count.min,
      max: total.max === null || e.count.max === null ? null : total.max + e.count.max,
    };
  }
  for (const c of known) {
    if (c.count !== undefined && members.every((e) => matchOp(c.op, e.op))) total = capCount(total, c.count.max);
  }
  return total;
}

function capCount(range: CountRange, max: number): CountRange {
  return { min: Math.min(range.min, max), max: range.max === null ? max : Math.min(range.max, max) };
}

/**
 * The arguments as a call that runs has them. The connector refuses a call whose arguments lack
 * the manifest's types (checkArgs), so an unknown required string is some string, and a list of
 * strings a list of strings — shapes `narrow` can refine. An optional input the program does not
 * pass is null, for rules and grants alike (as the run-time check reads it). An input with a
 * `format` is in the canonical form the wrapper checks and sends (canonicalAbstract).
 */
export function typedEffect(effect: Effect, set: ManifestSet): Effect {
  const inputs = set.actions.get(effect.op)?.manifest.inputs ?? [];
  let args = effect.args;
  for (const input of inputs) {
    const value = args[input.name];
    const typed =
      value === undefined
        ? input.required
          ? undefined
          : NULL
        : formatted(input.required ? typedValue(value, input) : value, input);
    if (typed !== value && typed !== undefined) args = { ...args, [input.name]: typed };
  }
  return args === effect.args ? effect : { ...effect, args };
}

const NULL: AbstractValue = { kind: "const", values: [null] };

function formatted(value: AbstractValue, input: ActionInput): AbstractValue {
  return input.format === undefined ? value : canonicalAbstract(input.format, value);
}

function typedValue(value: AbstractValue, input: ActionInput): AbstractValue {
  if (input.type === "string" && value.kind === "unknown") return anyString(value.provenance);
  if (input.type !== "array" || input.items_type !== "string") return value;
  if (value.kind === "unknown")
    return { kind: "array", element: anyString(value.provenance), length: { min: 0, max: null } };
  if (value.kind === "array" && value.element.kind === "unknown")
    return { ...value, element: anyString(value.element.provenance) };
  return value;
}

function anyString(provenance: Provenance[]): AbstractValue {
  return { kind: "string", prefix: "", suffix: "", provenance };
}
