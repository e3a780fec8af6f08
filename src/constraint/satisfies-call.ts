import type { EffectConstraint } from "../model/index.js";
import type { Json } from "../model/index.js";
import { canonicalJson } from "./canonical-json.js";
import { resolveArg, type EffectOptions } from "./effect-options.js";
import { isAddress, mailboxOf } from "./email-address.js";
import { matchOp } from "./match-op.js";
import { satisfies } from "./satisfies.js";

export interface Call {
  op: string;
  args: Record<string, Json>;
}

/**
 * The run-time check of one call, given the calls already made in this run. A call the
 * constraint's op does not select passes. Otherwise every constrained argument must satisfy its
 * constraint (for one the call does not pass, see `absentInput`; the wrapper adds the resolved
 * ones to the call, so a resolved input missing here is refused), the selected calls including
 * this one must number at most `count.max`, and the `distinct` input's values across them (each
 * element, for a list) must be pairwise different; null, an input left out, is no value.
 */
export function satisfiesCall(
  c: EffectConstraint,
  call: Call,
  history: readonly Call[],
  opts: EffectOptions = {},
): boolean {
  if (!matchOp(c.op, call.op)) return true;
  for (const [input, constraint] of Object.entries(c.args ?? {})) {
    const arg = resolveArg<Json>(call.op, call.args, input, null, opts);
    if ("missing" in arg ? arg.missing !== "skip" : !satisfies(constraint, arg.value)) return false;
  }
  const selected = [...history.filter((h) => matchOp(c.op, h.op)), call];
  if (c.count !== undefined && selected.length > c.count.max) return false;
  return c.distinct === undefined || distinctAcross(c.distinct, selected, opts);
}

function distinctAcross(input: string, calls: readonly Call[], opts: EffectOptions): boolean {
  const seen = new Set<string>();
  for (const call of calls) {
    const arg = resolveArg<Json>(call.op, call.args, input, null, opts);
    if ("missing" in arg && arg.missing !== "skip") return false;
    for (const token of "value" in arg ? distinctTokens(arg.value) : []) {
      const key = distinctKey(token);
      if (seen.has(key)) return false;
      seen.add(key);
    }
  }
  return true;
}

/** The values a `distinct` input contributes: a list's elements or the single value, nulls left out. */
export function distinctTokens(value: Json): Json[] {
  return (Array.isArray(value) ? value : [value]).filter((v) => v !== null);
}

/**
 * When two `distinct` values are the same: equal JSON, and for strings holding `@` the same
 * mailbox (mailboxOf) — `A@X.com.` and `a+2@x.com` reach the mailbox `a@x.com` does, so they repeat it.
 */
export function distinctKey(token: Json): string {
  return typeof token === "string" && isAddress(token) ? JSON.stringify(mailboxOf(token)) : canonicalJson(token);
}
