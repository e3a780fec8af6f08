import { isAddress } from "../constraint/index.js";
import type { ValueConstraint } from "../model/index.js";
import type { Json } from "../model/index.js";
import type { PolicyRule } from "./schema.js";

/**
 * A rule's argument conditions as they are decided and guarded. An address written in a policy
 * names a mailbox, and one mailbox has many spellings (`ceo+x@rival.com`; at Gmail `c.e.o@`), so
 * each condition is read in the direction that never lets a spelling through: where a deny or ask
 * rule would fire on an address (an `eq`, `in` or address `glob` it asserts), it fires on every
 * address reaching that mailbox (`mailbox_in`, `mailbox_glob`); where it fires on an address not
 * being one (inside `not`, `not_in`), the address stays exact, so `not_in = ["me@x.com"]` still
 * fires for `me+y@x.com`. Allow rules are read the other way round: what they allow stays exact,
 * what they exclude widens. The result is an explicit constraint, so a deny rule's guard carries
 * the comparison the decision used, and the run checks exactly that.
 */
export function ruleArgs(rule: PolicyRule): Readonly<Record<string, ValueConstraint>> {
  const args = rule.when?.args;
  if (args === undefined) return NONE;
  let widened = cache.get(args);
  if (widened === undefined) {
    const fires = rule.decision !== "allow";
    widened = Object.fromEntries(Object.entries(args).map(([name, c]) => [name, widenAddresses(c, fires)]));
    cache.set(args, widened);
  }
  return widened;
}

const NONE: Readonly<Record<string, ValueConstraint>> = Object.freeze({});
// Keyed by the args object, not the rule: the decision is part of the rule, so per rule object it is fixed.
const cache = new WeakMap<object, Record<string, ValueConstraint>>();

/**
 * `c` with its addresses compared by mailbox where a match makes the condition wider in the
 * direction `wide` asks for: `wide` at the top for deny and ask conditions, flipped under `not`.
 */
export function widenAddresses(c: ValueConstraint, wide: boolean): ValueConstraint {
  if ("not" in c) return { not: widenAddresses(c.not, !wide) };
  if ("all" in c) return { all: c.all.map((p) => widenAddresses(p, wide)) };
  if ("any" in c) return { any: c.any.map((p) => widenAddresses(p, wide)) };
  if ("elements" in c) return { elements: widenAddresses(c.elements, wide) };
  if ("fields" in c)
    return { fields: Object.fromEntries(Object.entries(c.fields).map(([k, f]) => [k, widenAddresses(f, wide)])) };
  if ("json" in c) return { json: widenAddresses(c.json, wide) };
  if ("at" in c) return { at: { path: c.at.path, is: widenAddresses(c.at.is, wide) } };
  if ("eq" in c) return wide ? (byMailbox([c.eq]) ?? c) : c;
  if ("in" in c) return wide ? (byMailbox(c.in) ?? c) : c;
  // not_in is "not in": its members are excluded, so they widen when the whole narrows.
  if ("not_in" in c) {
    const excluded = wide ? undefined : byMailbox(c.not_in);
    return excluded === undefined ? c : { not: excluded };
  }
  if ("glob" in c) return wide && isAddress(c.glob) ? { mailbox_glob: c.glob } : c;
  return c;
}

/** `in` over `members` with the addresses among them compared by mailbox; undefined when none is an address. */
function byMailbox(members: readonly Json[]): ValueConstraint | undefined {
  const addresses = members.filter((m): m is string => typeof m === "string" && isAddress(m));
  if (addresses.length === 0) return undefined;
  const rest = members.filter((m) => !(typeof m === "string" && isAddress(m)));
  const mailboxes: ValueConstraint = { mailbox_in: addresses };
  return rest.length === 0 ? mailboxes : { any: [{ in: rest }, mailboxes] };
}
