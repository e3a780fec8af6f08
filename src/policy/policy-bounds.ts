import { matchOp } from "../constraint/index.js";
import type { ValueConstraint } from "../model/index.js";
import type { PolicyRule } from "./schema.js";

/** The constraint keys whose bounds are summarised: folders (`under`) and hosts (`host_in`). */
export type BoundKey = "under" | "host_in";

/**
 * What a policy's rules say about where one input of one op may point, for an agent to read up
 * front. `within`: the union of the deny rules of the form `not { key }` (a value outside every one
 * of them is denied; null: no such rule). `auto_pass`: the values of allow rules `{ key }` (within
 * them the rule lets the call pass without asking, when nothing else asks). `see`: rules about the
 * same input this summary cannot say in a word; their plain words are in the policy's rules.
 */
export interface PolicyBound {
  op: string;
  input: string;
  within: string[] | null;
  auto_pass: string[];
  rules: string[];
  see: string[];
}

/**
 * The bound of `op`'s `input` from `rules`. Only the simple forms are read; a deny rule whose
 * condition adds more to `not { key }` (untrusted data, influence) denies only part of what an
 * unconditional one with the same values denies, and says nothing new; any other rule that names
 * the key on this input is left to `see`.
 */
export function policyBound(rules: readonly PolicyRule[], op: string, input: string, key: BoundKey): PolicyBound {
  const bound: PolicyBound = { op, input, within: null, auto_pass: [], rules: [], see: [] };
  const relevant = rules.filter((r) => matchOp(r.op, op) && mentions(r.when?.args?.[input], key));
  const conditional: PolicyRule[] = [];
  for (const rule of relevant) {
    const c = rule.when!.args![input]!;
    const alone = Object.keys(rule.when!).length === 1 && Object.keys(rule.when!.args!).length === 1;
    const negated = "not" in c ? valuesOf(c.not, key) : undefined;
    const plain = valuesOf(c, key);
    if (rule.decision === "deny" && alone && negated !== undefined) {
      bound.within = [...new Set([...(bound.within ?? []), ...negated])];
      bound.rules.push(rule.id);
    } else if (rule.decision === "allow" && rule.op === op && alone && plain !== undefined) {
      bound.auto_pass = [...new Set([...bound.auto_pass, ...plain])];
      bound.rules.push(rule.id);
    } else conditional.push(rule);
  }
  for (const rule of conditional) {
    const within = bound.within;
    const implied =
      rule.decision === "deny" &&
      within !== null &&
      negatedConjuncts(rule.when!.args![input]!, key).some((values) => within.every((v) => values.includes(v)));
    if (implied) bound.rules.push(rule.id);
    else bound.see.push(rule.id);
  }
  return bound;
}

function valuesOf(c: ValueConstraint, key: BoundKey): string[] | undefined {
  if (key === "under" && "under" in c) return [c.under];
  if (key === "host_in" && "host_in" in c) return [...c.host_in];
  return undefined;
}

// The `not { key }` parts of a condition that holds only when all its parts do.
function negatedConjuncts(c: ValueConstraint, key: BoundKey): string[][] {
  if ("not" in c) {
    const values = valuesOf(c.not, key);
    return values === undefined ? [] : [values];
  }
  return "all" in c ? c.all.flatMap((part) => negatedConjuncts(part, key)) : [];
}

function mentions(c: ValueConstraint | undefined, key: BoundKey): boolean {
  if (c === undefined) return false;
  if (key in c) return true;
  if ("not" in c) return mentions(c.not, key);
  if ("all" in c) return c.all.some((part) => mentions(part, key));
  if ("any" in c) return c.any.some((part) => mentions(part, key));
  if ("elements" in c) return mentions(c.elements, key);
  return false;
}
