import type { PathStep, ValueConstraint } from "../model/index.js";
import type { Json } from "../model/index.js";
import { mailboxGlobMatches, sameMailbox, sameValue } from "./email-address.js";
import { globMatches } from "./glob.js";
import { jsonTextOf } from "./json-text.js";
import { jsonTypeOf } from "./json-type.js";
import { pathSteps } from "./path-steps.js";
import { textSha256 } from "./text-sha256.js";
import { isPathUnder } from "./path-under.js";
import { hostAllowed, urlHostPort } from "./url-host.js";

/**
 * The run-time check: does a concrete value satisfy a constraint?
 *
 * Keys that look at the value itself (`sha256` too: a string whose digest is listed): `all` checks each conjunct
 * against the value; `max_length`
 * and `min_length` bound a string's or an array's length; `type` names the value's JSON type;
 * `elements` wants an array whose every element satisfies it; `fields` wants an object with no key
 * beyond those listed, each listed field (null when absent) satisfying its constraint; `json`
 * wants a string whose JSON value (json-text.ts) satisfies it; `at` wants the value at its path,
 * every one of them past a `[*]`, to satisfy its `is`.
 *
 * Arrays (docs/architecture.md section 6). For an array value every
 * other constraint — `eq`, `in`, `not_in`, `under`, `glob`, `host_in`, `prefix`, `suffix`, `any`,
 * `not` — must hold for each element, checked on that element by these same rules (so nested
 * arrays recurse). Hence an empty array satisfies every such constraint, `eq`/`in` operands never
 * match an array as a whole, and `not c` on an array means "every element fails c" — exactly
 * `not_in` for `in`.
 *
 * Leaves on a non-array value:
 * - `eq`, `in`, `not_in`: deep JSON equality (key order ignored); an operand holding `@` is an
 *   email address and matches a string with the same canonical form (email-address.ts).
 * - `under`: the value is an absolute path which, with `.`, `..` and `//` resolved, is the base or
 *   inside it. Relative paths and `~` are refused (false): nothing here knows a home directory.
 * - `glob`: `*` any run, `?` one UTF-16 code unit, the whole string; case-sensitive unless the
 *   pattern holds `@` (an email pattern: canonical forms compared).
 * - `host_in`: an http(s) URL whose host, as the WHATWG parser reads it, equals an entry
 *   (case-insensitive, exact; `host:port` entries also fix the port). Anything else is false.
 * - `prefix`, `suffix`: the string starts (ends) with the operand, exactly.
 * - `mailbox_in`, `mailbox_glob`: the string reaches the mailbox of a listed address, or a mailbox
 *   the pattern matches (email-address.ts: mailboxOf, mailboxGlobMatches).
 * Numbers, objects and the rest fail every string leaf. A constraint of unknown shape is false:
 * fail closed. So is a provenance condition (`untrusted`, `from`): a run cannot know where a value
 * came from, and none reaches a run-time check (see sources.ts).
 */
export function satisfies(c: ValueConstraint, value: Json): boolean {
  if ("all" in c) return c.all.every((part) => satisfies(part, value));
  if ("max_length" in c) return (typeof value === "string" || Array.isArray(value)) && value.length <= c.max_length;
  if ("min_length" in c) return (typeof value === "string" || Array.isArray(value)) && value.length >= c.min_length;
  if ("type" in c) return c.type.includes(jsonTypeOf(value));
  if ("sha256" in c) return typeof value === "string" && c.sha256.includes(textSha256(value));
  if ("elements" in c) return Array.isArray(value) && value.every((element) => satisfies(c.elements, element));
  if ("fields" in c) return satisfiesFields(c.fields, value);
  if ("json" in c) return typeof value === "string" && satisfiesJson(c.json, value);
  if ("at" in c) return satisfiesAt(pathSteps(c.at.path), c.at.is, value);
  if (Array.isArray(value)) return value.every((element) => satisfies(c, element));
  if ("any" in c) return c.any.some((part) => satisfies(part, value));
  if ("not" in c) return !satisfies(c.not, value);
  if ("eq" in c) return sameValue(c.eq, value);
  if ("in" in c) return c.in.some((member) => sameValue(member, value));
  if ("not_in" in c) return !c.not_in.some((member) => sameValue(member, value));
  if ("mailbox_in" in c) return c.mailbox_in.some((member) => sameMailbox(member, value));
  if (typeof value !== "string") return false;
  if ("under" in c) return isPathUnder(value, c.under);
  if ("glob" in c) return globMatches(c.glob, value);
  if ("mailbox_glob" in c) return mailboxGlobMatches(c.mailbox_glob, value);
  if ("prefix" in c) return value.startsWith(c.prefix);
  if ("suffix" in c) return value.endsWith(c.suffix);
  if ("host_in" in c) {
    const target = urlHostPort(value);
    return target !== null && hostAllowed(c.host_in, target);
  }
  return false;
}

// Own keys only on both sides: a field named `constructor` must not find Object.prototype's.
function satisfiesFields(fields: Record<string, ValueConstraint>, value: Json): boolean {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  if (Object.keys(value).some((key) => !Object.hasOwn(fields, key))) return false;
  return Object.entries(fields).every(([key, c]) => satisfies(c, Object.hasOwn(value, key) ? value[key]! : null));
}

function satisfiesJson(c: ValueConstraint, text: string): boolean {
  const read = jsonTextOf(text);
  return read.ok && satisfies(c, read.value);
}

/**
 * `is` holds at the end of `steps` from `value`: a field of an object (null when absent or when
 * the value is no object), every element of a list at `[*]` (null when the value is no list).
 */
export function satisfiesAt(steps: readonly PathStep[], is: ValueConstraint, value: Json, from = 0): boolean {
  if (from === steps.length) return satisfies(is, value);
  const step = steps[from]!;
  if ("every" in step)
    return Array.isArray(value)
      ? value.every((element) => satisfiesAt(steps, is, element, from + 1))
      : satisfiesAt(steps, is, null, from + 1);
  const field =
    value !== null && typeof value === "object" && !Array.isArray(value) && Object.hasOwn(value, step.field)
      ? value[step.field]!
      : null;
  return satisfiesAt(steps, is, field, from + 1);
}
