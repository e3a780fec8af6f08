import type { ValueConstraint } from "../model/index.js";
import type { Json } from "../model/index.js";
import { jsonEqual } from "./canonical-json.js";
import { isAddress, sameMailbox, sameValue } from "./email-address.js";
import { isElementwise } from "./elementwise.js";
import { isPathUnder } from "./path-under.js";
import { pathSteps } from "./path-steps.js";
import { satisfies } from "./satisfies.js";
import { parseHostEntry } from "./url-host.js";

/**
 * Sound but incomplete: true only if every JSON value satisfying `premise` satisfies
 * `conclusion`, arrays included (see the array rule in satisfies.ts). Each rule below is a proof
 * step; false means "not shown", never "does not follow".
 */
export function implies(premise: ValueConstraint, conclusion: ValueConstraint): boolean {
  if (jsonEqual(premise as Json, conclusion as Json)) return true;
  if ("all" in conclusion && conclusion.all.every((c) => implies(premise, c))) return true;
  if ("all" in premise && premise.all.some((p) => implies(p, conclusion))) return true;
  // The two below go through elements, so the side they reach must treat arrays element-wise.
  if ("any" in premise && isElementwise(conclusion) && premise.any.every((p) => implies(p, conclusion))) return true;
  if ("any" in conclusion && conclusion.any.some((c) => isElementwise(c) && implies(premise, c))) return true;
  if ("not" in premise && "not" in conclusion && implies(conclusion.not, premise.not)) return true;
  return impliesLeaf(premise, conclusion);
}

function impliesLeaf(premise: ValueConstraint, conclusion: ValueConstraint): boolean {
  const members = membersOf(premise);
  // A value in a finite set is an array of members (element-wise) or a non-array member, or for
  // an address member any string of its canonical form: check those.
  if (members !== undefined) {
    return (
      isElementwise(conclusion) &&
      members.every(
        (m) => Array.isArray(m) || (satisfies(conclusion, m) && (!isAnAddress(m) || canonicalInvariant(conclusion))),
      )
    );
  }
  const excluded = "not_in" in premise ? premise.not_in : undefined;
  if (excluded !== undefined) {
    const banned =
      "not_in" in conclusion ? conclusion.not_in : "not" in conclusion ? membersOf(conclusion.not) : undefined;
    return banned?.every((b) => Array.isArray(b) || excluded.some((e) => sameValue(e, b))) ?? false;
  }
  if ("mailbox_in" in premise && "mailbox_in" in conclusion)
    return premise.mailbox_in.every((a) => conclusion.mailbox_in.some((b) => sameMailbox(b, a)));
  if ("under" in premise && "under" in conclusion) return isPathUnder(premise.under, conclusion.under);
  if ("host_in" in premise && "host_in" in conclusion)
    return premise.host_in.every((h) => hostCovered(h, conclusion.host_in));
  if ("max_length" in premise && "max_length" in conclusion) return premise.max_length <= conclusion.max_length;
  if ("min_length" in premise && "min_length" in conclusion) return premise.min_length >= conclusion.min_length;
  if ("prefix" in premise && "prefix" in conclusion) return premise.prefix.startsWith(conclusion.prefix);
  if ("suffix" in premise && "suffix" in conclusion) return premise.suffix.endsWith(conclusion.suffix);
  if ("type" in premise && "type" in conclusion) return premise.type.every((t) => conclusion.type.includes(t));
  if ("elements" in premise && "elements" in conclusion) return implies(premise.elements, conclusion.elements);
  if ("fields" in premise && "fields" in conclusion) return fieldsImply(premise.fields, conclusion.fields);
  if ("json" in premise && "json" in conclusion) return implies(premise.json, conclusion.json);
  if ("at" in premise && "at" in conclusion)
    return samePath(premise.at.path, conclusion.at.path) && implies(premise.at.is, conclusion.at.is);
  return false;
}

// The premise's keys are all allowed by the conclusion; each conclusion field follows from the
// premise's, or, for a key the premise does not list (so always absent), holds of null.
function fieldsImply(premise: Record<string, ValueConstraint>, conclusion: Record<string, ValueConstraint>): boolean {
  if (Object.keys(premise).some((key) => !Object.hasOwn(conclusion, key))) return false;
  return Object.entries(conclusion).every(([key, c]) =>
    Object.hasOwn(premise, key) ? implies(premise[key]!, c) : satisfies(c, null),
  );
}

// Two spellings of one path (`$.to`, `$["to"]`) name the same value.
function samePath(a: string, b: string): boolean {
  return a === b || jsonEqual(pathSteps(a) as unknown as Json, pathSteps(b) as unknown as Json);
}

function isAnAddress(m: Json): boolean {
  return typeof m === "string" && isAddress(m);
}

/**
 * Whether a constraint answers alike for strings of the same canonical address form: `eq`, `in`
 * and `not_in` (an address operand compares canonical forms; any other operand equals no string
 * holding `@`), email globs, and combinations of these.
 */
function canonicalInvariant(c: ValueConstraint): boolean {
  if ("all" in c) return c.all.every(canonicalInvariant);
  if ("any" in c) return c.any.every(canonicalInvariant);
  if ("not" in c) return canonicalInvariant(c.not);
  if ("glob" in c) return isAddress(c.glob);
  return "eq" in c || "in" in c || "not_in" in c || "mailbox_in" in c || "mailbox_glob" in c;
}

// An entry allows a subset of another's URLs: same host, and the other allows every port or this one.
function hostCovered(entry: string, others: readonly string[]): boolean {
  const mine = parseHostEntry(entry);
  if (mine === null) return true; // an entry that is no host allows nothing
  return others.some((other) => {
    const theirs = parseHostEntry(other);
    return theirs !== null && theirs.host === mine.host && (theirs.port === null || theirs.port === mine.port);
  });
}

// The finite set an `eq` or `in` allows.
function membersOf(c: ValueConstraint): readonly Json[] | undefined {
  return "eq" in c ? [c.eq] : "in" in c ? c.in : undefined;
}
