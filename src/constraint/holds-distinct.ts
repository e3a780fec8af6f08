import type { AbstractValue } from "../model/index.js";
import type { Effect } from "../model/index.js";
import { describeSite, missingWhy } from "./describe-site.js";
import { ABSENT, resolveArg, type EffectOptions } from "./effect-options.js";
import type { EffectCheck } from "./holds-effect.js";
import { distinctKey, distinctTokens } from "./satisfies-call.js";

/**
 * `distinct` over the selected effects, with the run-time reading of satisfiesCall (each list
 * element is a value, null is none).
 * no: some value repeats in every run — a call that surely runs repeats a value within itself,
 * a call that surely runs twice always carries some value, or two calls that surely run always
 * share one. yes: at most one value in any run, or every call runs at most once with constant
 * values, no constant repeats inside itself, and no two calls can share one. Else maybe.
 */
export function holdsDistinct(
  op: string,
  input: string,
  selected: readonly Effect[],
  opts: EffectOptions,
): EffectCheck {
  const values: { effect: Effect; value: AbstractValue }[] = [];
  let unchecked: { effect: Effect; missing: "resolved" | "unchecked" } | undefined;
  for (const effect of selected) {
    const arg = resolveArg(effect.op, effect.args, input, ABSENT, opts);
    if ("value" in arg) values.push({ effect, value: arg.value });
    else if (arg.missing !== "skip") unchecked ??= { effect, missing: arg.missing };
  }

  const earlier: Set<string>[] = [];
  for (const { effect, value } of values) {
    if (effect.count.min === 0) continue;
    const forced = forcedTokens(value);
    const shared = earlier.flatMap((set) => [...forced.tokens].filter((t) => set.has(t)))[0];
    const again = effect.count.min >= 2 ? [...forced.tokens][0] : undefined;
    const repeated = forced.repeats ? "a value" : (again ?? shared);
    if (repeated !== undefined) {
      return {
        verdict: "no",
        site: effect.site,
        why: `${input} ${repeated} repeats in every run (${describeSite(effect)})`,
        offending: { op: effect.op, input },
      };
    }
    earlier.push(forced.tokens);
  }

  if (unchecked !== undefined) return { verdict: "maybe", why: missingWhy(unchecked.effect, input, unchecked.missing) };
  const bound = values.reduce((sum, { effect, value }) => {
    const perCall = tokensPerCall(value);
    return perCall === 0 ? sum : sum + (effect.count.max ?? Infinity) * perCall;
  }, 0);
  if (bound <= 1 || constantsDisjoint(values))
    return { verdict: "yes", why: `every ${op} call has a different ${input}` };
  return { verdict: "maybe", why: `${input} may repeat across ${op} calls` };
}

/** Tokens every call of the value surely carries, and whether every call surely repeats one. */
function forcedTokens(value: AbstractValue): { tokens: Set<string>; repeats: boolean } {
  if (value.kind === "const") {
    const sets = value.values.map((x) => distinctTokens(x).map(distinctKey));
    const tokens = sets.reduce((common, set) => common.filter((t) => set.includes(t)));
    return { tokens: new Set(tokens), repeats: sets.every((set) => new Set(set).size < set.length) };
  }
  if (value.kind === "array" && value.element.kind === "const" && !value.element.values.includes(null)) {
    const kinds = new Set(value.element.values.map(distinctKey));
    const tokens = kinds.size === 1 && value.length.min >= 1 ? kinds : new Set<string>();
    return { tokens, repeats: value.length.min > kinds.size };
  }
  return { tokens: new Set(), repeats: false };
}

function tokensPerCall(value: AbstractValue): number {
  if (value.kind === "const") return Math.max(...value.values.map((x) => distinctTokens(x).length));
  if (value.kind === "array") return value.length.max ?? Infinity;
  return value.kind === "unknown" ? Infinity : 1;
}

// Every call runs at most once, each value is a constant without inner repeats, and no two calls share one.
function constantsDisjoint(values: readonly { effect: Effect; value: AbstractValue }[]): boolean {
  const seen = new Set<string>();
  for (const { effect, value } of values) {
    const tokens = knownTokens(value);
    if (tokens === null || effect.count.max === null || effect.count.max > 1) return false;
    for (const t of tokens) if (seen.has(t)) return false;
    for (const t of tokens) seen.add(t);
  }
  return true;
}

function knownTokens(value: AbstractValue): Set<string> | null {
  if (value.kind === "array" && value.length.max === 0) return new Set();
  if (value.kind === "array" && value.element.kind === "const" && value.length.max === 1) {
    return new Set(value.element.values.flatMap((x) => distinctTokens([x])).map(distinctKey));
  }
  if (value.kind !== "const") return null;
  const sets = value.values.map((x) => distinctTokens(x).map(distinctKey));
  if (sets.some((set) => new Set(set).size < set.length)) return null;
  return new Set(sets.flat());
}
