import type { AbstractValue } from "../model/index.js";
import type { EffectConstraint, ValueConstraint, Verdict3 } from "../model/index.js";
import type { Effect, Site } from "../model/index.js";
import type { Json } from "../model/index.js";
import { describeConstraint } from "./describe.js";
import { describeSite, missingWhy } from "./describe-site.js";
import { ABSENT, resolveArg, type EffectOptions } from "./effect-options.js";
import { isElementwise } from "./elementwise.js";
import { holds } from "./holds.js";
import { holdsDistinct } from "./holds-distinct.js";
import { matchOp } from "./match-op.js";
import { satisfies } from "./satisfies.js";

/** The verdict on an effect constraint, why, and on `no` the first call that breaks it. */
export interface EffectCheck {
  verdict: Verdict3;
  why: string;
  site?: Site;
  offending?: { op: string; input?: string; value?: Json };
}

/**
 * The static check of an effect constraint over every effect of a program, agreeing with
 * `satisfiesCall` on every run: yes when no run can break it, no when every run does, maybe
 * otherwise. Effects whose op the pattern selects count, including those that may not run
 * (count min 0); only a count max of 0 rules one out. Parts: each constrained argument of each
 * selected effect (no only if that effect surely runs); the total call count (the sums of the
 * count ranges against the bound); distinctness (see holdsDistinct).
 */
export function holdsEffect(c: EffectConstraint, effects: readonly Effect[], opts: EffectOptions = {}): EffectCheck {
  const selected = effects.filter((e) => matchOp(c.op, e.op) && e.count.max !== 0);
  const parts: EffectCheck[] = [];
  if (c.args !== undefined && Object.keys(c.args).length > 0) parts.push(checkArgs(c.args, selected, opts));
  if (c.count !== undefined) parts.push(checkCount(c.op, c.count.max, selected));
  if (c.distinct !== undefined) parts.push(holdsDistinct(c.op, c.distinct, selected, opts));
  const refuted = parts.find((p) => p.verdict === "no");
  if (refuted !== undefined) return refuted;
  const open = parts.filter((p) => p.verdict === "maybe");
  if (open.length > 0) return { verdict: "maybe", why: open.map((p) => p.why).join("; ") };
  if (selected.length === 0) return { verdict: "yes", why: `the program makes no ${c.op} call` };
  return { verdict: "yes", why: parts.length === 0 ? `every ${c.op} call` : parts.map((p) => p.why).join("; ") };
}

function checkArgs(
  args: Record<string, ValueConstraint>,
  selected: readonly Effect[],
  opts: EffectOptions,
): EffectCheck {
  const open: string[] = [];
  for (const e of selected) {
    for (const [input, constraint] of Object.entries(args)) {
      const arg = resolveArg(e.op, e.args, input, ABSENT, opts);
      const what = `${input} ${describeConstraint(constraint)}`;
      if ("missing" in arg) {
        if (arg.missing !== "skip") open.push(missingWhy(e, input, arg.missing));
        continue;
      }
      const verdict = holds(constraint, arg.value);
      if (verdict === "no" && e.count.min >= 1) {
        const value = firstFailing(constraint, arg.value);
        const offending = value === undefined ? { op: e.op, input } : { op: e.op, input, value };
        const got = value === undefined ? "" : ` (${JSON.stringify(value)})`;
        return { verdict: "no", site: e.site, why: `${describeSite(e)}: ${what} fails${got}`, offending };
      }
      if (verdict === "no") open.push(`${describeSite(e)} may run, and then ${what} fails`);
      else if (verdict === "maybe") open.push(`${describeSite(e)}: ${what} is not known statically`);
    }
  }
  if (open.length > 0) return { verdict: "maybe", why: open.join("; ") };
  return {
    verdict: "yes",
    why: `every ${Object.entries(args)
      .map(([i, c]) => `${i} ${describeConstraint(c)}`)
      .join(" and ")}`,
  };
}

// A concrete counterexample for the reason: the first failing constant, or its first failing element.
function firstFailing(c: ValueConstraint, v: AbstractValue): Json | undefined {
  if (v.kind !== "const") return undefined;
  const value = v.values.find((x) => !satisfies(c, x));
  if (Array.isArray(value) && isElementwise(c)) return value.find((x) => !satisfies(c, x)) ?? value;
  return value;
}

function checkCount(op: string, max: number, selected: readonly Effect[]): EffectCheck {
  let least = 0;
  let most: number | null = 0;
  let breaking: Effect | undefined;
  for (const e of selected) {
    least += e.count.min;
    most = most === null || e.count.max === null ? null : most + e.count.max;
    if (least > max) breaking ??= e;
  }
  if (most !== null && most <= max)
    return { verdict: "yes", why: `at most ${most} ${op} call${most === 1 ? "" : "s"} (bound ${max})` };
  if (breaking !== undefined) {
    return {
      verdict: "no",
      site: breaking.site,
      why: `at least ${least} ${op} call${least === 1 ? "" : "s"}, more than ${max} (${describeSite(breaking)})`,
      offending: { op: breaking.op },
    };
  }
  return { verdict: "maybe", why: `${least} to ${most ?? "unboundedly many"} ${op} calls against a bound of ${max}` };
}
