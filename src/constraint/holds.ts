import type { AbstractValue, CountRange, PathStep, Provenance } from "../model/index.js";
import type { JsonType, ValueConstraint, Verdict3 } from "../model/index.js";
import type { Json } from "../model/index.js";
import { mailboxCover, shapeMayBe } from "./email-address.js";
import { holdsGlob } from "./holds-glob.js";
import { holdsHostIn } from "./holds-host.js";
import { holdsUnder } from "./holds-under.js";
import { and3, not3, or3, tally } from "./kleene.js";
import { pathSteps } from "./path-steps.js";
import { satisfies, satisfiesAt } from "./satisfies.js";
import { shortestMember } from "./string-shape.js";
import { mentionsSources, resolutions, resolvesToItself } from "./sources.js";
import { provenanceOf } from "./provenance-of.js";

/**
 * The static check: yes when every concrete value `v` stands for satisfies `c`, no when none
 * does, maybe otherwise — and maybe whenever in doubt. Follows `satisfies` rule for rule (see
 * the array rule there): constants are checked one by one; on arrays the keys that look at the
 * value itself (`max_length`, `min_length`, `type`, `elements`, `fields`, `json`, `at`, `all`)
 * are decided at the array level, every other constraint goes to the element. Combinators use
 * Kleene's logic, which is sound on a single value. `json` is known only of a constant: a partly
 * known string may or may not parse, whatever the inner constraint; `at` follows its path
 * through the abstract value.
 */
export function holds(c: ValueConstraint, v: AbstractValue): Verdict3 {
  if (mentionsSources(c)) return holdsWithSources(c, v, provenanceOf(v));
  if (v.kind === "const") return tally(v.values.map((value) => satisfies(c, value)));
  if (v.kind === "array") return holdsArray(c, v.element, v.length);
  if ("all" in c) return and3(c.all.map((part) => holds(part, v)));
  // Unknown may be a list, on which `not` goes element by element: Kleene's not would be unsound.
  if (v.kind === "unknown") return "maybe";
  if ("type" in c) return c.type.includes(KIND_TYPE[v.kind]) ? "yes" : "no";
  if ("any" in c) return or3(c.any.map((part) => holds(part, v)));
  if ("not" in c) return not3(holds(c.not, v));
  if ("json" in c) return v.kind === "string" ? "maybe" : "no";
  if ("at" in c) return holdsAt(pathSteps(c.at.path), c.at.is, v);
  if (v.kind === "string") return holdsString(c, v.prefix, v.suffix);
  return holdsRecord(c, v.fields);
}

/**
 * `holds` with the provenance conditions read from `sources` (the policy passes an argument's
 * sources as the analysis found them: narrowing by a guarantee does not make data trusted): the
 * verdict every way they may come out agrees on, else maybe.
 */
export function holdsWithSources(c: ValueConstraint, v: AbstractValue, sources: readonly Provenance[]): Verdict3 {
  // The common case, a constraint without provenance conditions, checked as it is.
  if (resolvesToItself(c)) return holds(c, v);
  const ways = resolutions(c, sources);
  if (ways === undefined) return "maybe";
  const verdicts = ways.map((way) => holds(way, v));
  return verdicts.every((x) => x === verdicts[0]) ? verdicts[0]! : "maybe";
}

const KIND_TYPE: Record<"string" | "record", JsonType> = { string: "string", record: "object" };

function holdsArray(c: ValueConstraint, element: AbstractValue, length: CountRange): Verdict3 {
  if ("max_length" in c) return atMost(length, c.max_length);
  if ("min_length" in c) return atLeast(length, c.min_length);
  if ("type" in c) return c.type.includes("array") ? "yes" : "no";
  if ("fields" in c || "sha256" in c || "json" in c) return "no";
  if ("at" in c) return holdsAt(pathSteps(c.at.path), c.at.is, { kind: "array", element, length });
  if ("all" in c) return and3(c.all.map((part) => holds(part, { kind: "array", element, length })));
  const each = "elements" in c ? c.elements : c;
  return eachElement((e) => holds(each, e), element, length);
}

function eachElement(
  check: (element: AbstractValue) => Verdict3,
  element: AbstractValue,
  length: CountRange,
): Verdict3 {
  if (length.max === 0) return "yes"; // only the empty array, which satisfies everything
  const each = check(element);
  if (each === "no" && length.min === 0) return "maybe"; // the empty array still passes
  return each;
}

function atMost(range: CountRange, max: number): Verdict3 {
  if (range.max !== null && range.max <= max) return "yes";
  return range.min > max ? "no" : "maybe";
}

function atLeast(range: CountRange, min: number): Verdict3 {
  if (range.min >= min) return "yes";
  return range.max !== null && range.max < min ? "no" : "maybe";
}

// A leaf on a partly known string; the unknown middle makes it never a single value.
function holdsString(c: ValueConstraint, prefix: string, suffix: string): Verdict3 {
  const member = (x: Json) => typeof x === "string" && shapeMayBe(x, prefix, suffix);
  if ("eq" in c) return member(c.eq) ? "maybe" : "no";
  if ("in" in c) return c.in.some(member) ? "maybe" : "no";
  if ("not_in" in c) return c.not_in.some(member) ? "maybe" : "yes";
  if ("max_length" in c) return shortestMember(prefix, suffix) > c.max_length ? "no" : "maybe";
  if ("min_length" in c) return shortestMember(prefix, suffix) >= c.min_length ? "yes" : "maybe";
  if ("prefix" in c) return affix(prefix.startsWith(c.prefix), c.prefix.startsWith(prefix));
  if ("suffix" in c) return affix(suffix.endsWith(c.suffix), c.suffix.endsWith(suffix));
  if ("under" in c) return holdsUnder(c.under, prefix, suffix);
  if ("glob" in c) return holdsGlob(c.glob, prefix, suffix);
  if ("mailbox_in" in c) return c.mailbox_in.some((a) => mayReach(a, prefix, suffix)) ? "maybe" : "no";
  if ("mailbox_glob" in c)
    return holdsGlob(c.mailbox_glob, prefix, suffix) === "yes"
      ? "yes"
      : mayReach(c.mailbox_glob, prefix, suffix)
        ? "maybe"
        : "no";
  if ("host_in" in c) return holdsHostIn(c.host_in, prefix);
  if ("sha256" in c) return "maybe"; // only a constant's digest is known
  return "no"; // elements, fields: a string is neither a list nor an object
}

/** Whether some string of the shape may reach a mailbox `pattern` matches: one of its cover globs may match. */
function mayReach(pattern: string, prefix: string, suffix: string): boolean {
  return mailboxCover(pattern).some((g) => holdsGlob(g, prefix, suffix) !== "no");
}

/**
 * `prefix` (or `suffix`) against the known prefix (suffix): yes when the known part already
 * holds the wanted one; maybe when the wanted one extends the known part (the unknown middle can
 * supply the rest, e.g. wanted + suffix, or not); no when they disagree within their common length.
 */
function affix(covered: boolean, extended: boolean): Verdict3 {
  return covered ? "yes" : extended ? "maybe" : "no";
}

/**
 * A leaf on an object whose listed fields are in their abstract values (a field it leaves out is
 * null) and which has no other key: equality with an object operand may hold; `fields` is decided
 * key by key — a listed key the constraint does not list fails unless it may be absent; string
 * and length checks fail.
 */
function holdsRecord(c: ValueConstraint, fields: Record<string, AbstractValue>): Verdict3 {
  const object = (x: Json) => x !== null && typeof x === "object" && !Array.isArray(x);
  if ("eq" in c) return object(c.eq) ? "maybe" : "no";
  if ("in" in c) return c.in.some(object) ? "maybe" : "no";
  if ("not_in" in c) return c.not_in.some(object) ? "maybe" : "yes";
  if (!("fields" in c)) return "no";
  const verdicts: Verdict3[] = [];
  for (const [key, field] of Object.entries(fields)) {
    if (!Object.hasOwn(c.fields, key)) verdicts.push(holds({ eq: null }, field) === "no" ? "no" : "maybe");
  }
  for (const [key, wanted] of Object.entries(c.fields))
    verdicts.push(holds(wanted, Object.hasOwn(fields, key) ? fields[key]! : NULL));
  return and3(verdicts);
}

/** `satisfiesAt` on what the analysis knows: a record's field, an array's element; null elsewhere. */
function holdsAt(steps: readonly PathStep[], is: ValueConstraint, v: AbstractValue, from = 0): Verdict3 {
  if (v.kind === "const") return tally(v.values.map((value) => satisfiesAt(steps, is, value, from)));
  if (from === steps.length) return holds(is, v);
  if (v.kind === "unknown") return "maybe";
  const step = steps[from]!;
  if ("every" in step)
    return v.kind === "array"
      ? eachElement((e) => holdsAt(steps, is, e, from + 1), v.element, v.length)
      : holdsAt(steps, is, NULL, from + 1);
  const field = v.kind === "record" && Object.hasOwn(v.fields, step.field) ? v.fields[step.field]! : NULL;
  return holdsAt(steps, is, field, from + 1);
}

const NULL: AbstractValue = { kind: "const", values: [null] };
