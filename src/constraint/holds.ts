import type { AbstractValue, CountRange } from "../model/abstract.js";
import type { ValueConstraint, Verdict3 } from "../model/constraint.js";
import type { Json } from "../model/json.js";
import { holdsGlob } from "./holds-glob.js";
import { holdsHostIn } from "./holds-host.js";
import { holdsUnder } from "./holds-under.js";
import { and3, not3, or3, tally } from "./kleene.js";
import { satisfies } from "./satisfies.js";
import { isShapeMember, shortestMember } from "./string-shape.js";

/**
 * The static check: yes when every concrete value `v` stands for satisfies `c`, no when none
 * does, maybe otherwise — and maybe whenever in doubt. Follows `satisfies` rule for rule (see
 * the array rule there): constants are checked one by one; for arrays `max_length` bounds the
 * length range, `all` combines at the array level, every other constraint goes to the element.
 * Combinators use Kleene's logic, which is sound on a single value.
 */
export function holds(c: ValueConstraint, v: AbstractValue): Verdict3 {
  if (v.kind === "const") return tally(v.values.map((value) => satisfies(c, value)));
  if (v.kind === "array") return holdsArray(c, v.element, v.length);
  if ("all" in c) return and3(c.all.map((part) => holds(part, v)));
  if ("any" in c) return or3(c.any.map((part) => holds(part, v)));
  if ("not" in c) return not3(holds(c.not, v));
  if (v.kind === "string") return holdsString(c, v.prefix, v.suffix);
  if (v.kind === "record") return holdsRecord(c);
  return "maybe";
}

function holdsArray(c: ValueConstraint, element: AbstractValue, length: CountRange): Verdict3 {
  if ("max_length" in c) return atMost(length, c.max_length);
  if ("all" in c) return and3(c.all.map((part) => holds(part, { kind: "array", element, length })));
  if (length.max === 0) return "yes"; // only the empty array, which satisfies everything
  const each = holds(c, element);
  if (each === "no" && length.min === 0) return "maybe"; // the empty array still passes
  return each;
}

function atMost(range: CountRange, max: number): Verdict3 {
  if (range.max !== null && range.max <= max) return "yes";
  return range.min > max ? "no" : "maybe";
}

// A leaf on a partly known string; the unknown middle makes it never a single value.
function holdsString(c: ValueConstraint, prefix: string, suffix: string): Verdict3 {
  const member = (x: Json) => typeof x === "string" && isShapeMember(x, prefix, suffix);
  if ("eq" in c) return member(c.eq) ? "maybe" : "no";
  if ("in" in c) return c.in.some(member) ? "maybe" : "no";
  if ("not_in" in c) return c.not_in.some(member) ? "maybe" : "yes";
  if ("max_length" in c) return shortestMember(prefix, suffix) > c.max_length ? "no" : "maybe";
  if ("under" in c) return holdsUnder(c.under, prefix, suffix);
  if ("glob" in c) return holdsGlob(c.glob, prefix, suffix);
  if ("host_in" in c) return holdsHostIn(c.host_in, prefix);
  return "maybe";
}

// A leaf on an object: only equality with an object operand can hold; string and length checks fail.
function holdsRecord(c: ValueConstraint): Verdict3 {
  const object = (x: Json) => x !== null && typeof x === "object" && !Array.isArray(x);
  if ("eq" in c) return object(c.eq) ? "maybe" : "no";
  if ("in" in c) return c.in.some(object) ? "maybe" : "no";
  if ("not_in" in c) return c.not_in.some(object) ? "maybe" : "yes";
  return "no";
}
