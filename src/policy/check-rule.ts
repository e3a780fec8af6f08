import { and3, describeConstraint, holds, holdsEffect, implies, matchOp, not3 } from "../constraint/index.js";
import type { AbstractValue } from "../model/abstract.js";
import type { EffectConstraint, ValueConstraint, Verdict3 } from "../model/constraint.js";
import type { Effect } from "../model/facts.js";
import { describeCount, describeValue } from "./describe-value.js";
import { totalCount } from "./narrow-effect.js";
import { negation } from "./negation.js";
import type { PolicyRule } from "./schema.js";

export interface RuleCheck {
  holds: Verdict3;
  why: string;
  undecided: string[]; // the argument names whose condition is maybe
}

export interface RuleContext {
  effects: readonly Effect[]; // every effect of the program, narrowed like `effect`
  known: readonly EffectConstraint[]; // what holds at run time
  listInputs: ReadonlySet<string>; // inputs of the effect's action whose type is array
}

/**
 * Does `rule` (whose op matches) apply to `effect`? Three-valued, conditions joined by "and".
 * Allow and ask rules need every element of a list input to match (the constraint language's
 * reading); a deny rule fires when any element matches — "deny mail to *@rival.com" must catch
 * a list that holds one such address among others. `count` and `distinct` look at all effects
 * the rule's op matches, since a bound on calls is a bound on the total.
 */
export function checkRule(rule: PolicyRule, effect: Effect, context: RuleContext): RuleCheck {
  const parts: { name?: string; holds: Verdict3; why: string }[] = [];
  for (const [name, c] of Object.entries(rule.when?.args ?? {})) {
    const any = rule.decision === "deny" && context.listInputs.has(name);
    const known = context.known.flatMap((k) => (matchOp(k.op, effect.op) && k.args?.[name] !== undefined ? [k.args[name]] : []));
    parts.push({ name, ...argHolds(name, c, effect.args[name], any, known) });
  }
  const max = rule.when?.count?.max;
  if (max !== undefined) {
    const range = totalCount(context.effects, rule.op, context.known);
    const verdict: Verdict3 = range.max !== null && range.max <= max ? "yes" : range.min > max ? "no" : "maybe";
    parts.push({ holds: verdict, why: `at most ${max} calls of ${rule.op}: ${verdict} (${describeCount(range)} calls)` });
  }
  const distinct = rule.when?.distinct;
  if (distinct !== undefined) parts.push(distinctHolds(rule.op, distinct, context));
  const verdict = and3(parts.map((p) => p.holds));
  return {
    holds: verdict,
    why: parts.length === 0 ? `every ${rule.op} call` : parts.map((p) => p.why).join("; "),
    undecided: parts.flatMap((p) => (p.holds === "maybe" && p.name !== undefined ? [p.name] : [])),
  };
}

/**
 * One argument condition: the static check on what is known of the value, and failing that, a
 * proof from the constraints known to hold at every call (guarantees, guards) — `narrow` cannot
 * put "under /dir" into a string's shape, but `implies` can reason about it.
 */
function argHolds(name: string, c: ValueConstraint, value: AbstractValue | undefined, any: boolean, known: ValueConstraint[]): { holds: Verdict3; why: string } {
  const label = `${any ? "some " : ""}${name} ${describeConstraint(c)}`;
  if (value === undefined) return { holds: "maybe", why: `${label}: maybe (not passed)` };
  // Some element matches exactly when not every element fails to.
  const verdict = any ? not3(holds({ not: c }, value)) : holds(c, value);
  const premise: ValueConstraint | undefined = known.length <= 1 ? known[0] : { all: known };
  if (verdict === "maybe" && premise !== undefined) {
    if (!any && implies(premise, c)) return { holds: "yes", why: `${label}: yes (${describeValue(value)}, and every call must satisfy ${describeConstraint(premise)})` };
    if (implies(premise, any ? { not: c } : negation(c))) return { holds: "no", why: `${label}: no (${describeValue(value)}, and every call must satisfy ${describeConstraint(premise)})` };
  }
  return { holds: verdict, why: `${label}: ${verdict} (${describeValue(value)})` };
}

function distinctHolds(op: string, input: string, context: RuleContext): { holds: Verdict3; why: string } {
  const members = context.effects.filter((e) => matchOp(op, e.op));
  const promised = context.known.some((k) => k.distinct === input && members.every((e) => matchOp(k.op, e.op)));
  if (promised) return { holds: "yes", why: `distinct ${input}: yes (guaranteed by the program)` };
  const result = holdsEffect({ op, distinct: input }, [...members]);
  return { holds: result.verdict, why: `distinct ${input}: ${result.verdict} (${result.why})` };
}
