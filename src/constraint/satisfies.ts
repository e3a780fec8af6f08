import type { ValueConstraint } from "../model/constraint.js";
import type { Json } from "../model/json.js";
import { jsonEqual } from "./canonical-json.js";
import { globMatches } from "./glob.js";
import { isPathUnder } from "./path-under.js";
import { hostAllowed, urlHostPort } from "./url-host.js";

/**
 * The run-time check: does a concrete value satisfy a constraint?
 *
 * Arrays (DESIGN.md section 6: "array inputs: applies to each element"). For an array value,
 * `max_length` limits the array's own length and `all` checks each conjunct against the array;
 * every other constraint — `eq`, `in`, `not_in`, `under`, `glob`, `host_in`, `any`, `not` — must
 * hold for each element, checked on that element by these same rules (so nested arrays recurse).
 * Hence an empty array satisfies every constraint, `eq`/`in` operands never match an array as a
 * whole, and `not c` on an array means "every element fails c" — exactly `not_in` for `in`.
 *
 * Leaves on a non-array value:
 * - `eq`, `in`, `not_in`: deep JSON equality (key order ignored).
 * - `under`: the value is an absolute path which, with `.`, `..` and `//` resolved, is the base or
 *   inside it. Relative paths and `~` are refused (false): nothing here knows a home directory.
 * - `glob`: `*` any run, `?` one UTF-16 code unit, the whole string; case-sensitive unless the
 *   pattern holds `@` (an email pattern: ASCII case ignored).
 * - `host_in`: an http(s) URL whose host, as the WHATWG parser reads it, equals an entry
 *   (case-insensitive, exact; `host:port` entries also fix the port). Anything else is false.
 * - `max_length`: a string's length in UTF-16 code units; numbers, objects and the rest fail.
 * A constraint of unknown shape is false: fail closed.
 */
export function satisfies(c: ValueConstraint, value: Json): boolean {
  if ("all" in c) return c.all.every((part) => satisfies(part, value));
  if ("max_length" in c) return (typeof value === "string" || Array.isArray(value)) && value.length <= c.max_length;
  if (Array.isArray(value)) return value.every((element) => satisfies(c, element));
  if ("any" in c) return c.any.some((part) => satisfies(part, value));
  if ("not" in c) return !satisfies(c.not, value);
  if ("eq" in c) return jsonEqual(value, c.eq);
  if ("in" in c) return c.in.some((member) => jsonEqual(value, member));
  if ("not_in" in c) return !c.not_in.some((member) => jsonEqual(value, member));
  if (typeof value !== "string") return false;
  if ("under" in c) return isPathUnder(value, c.under);
  if ("glob" in c) return globMatches(c.glob, value);
  if ("host_in" in c) {
    const target = urlHostPort(value);
    return target !== null && hostAllowed(c.host_in, target);
  }
  return false;
}
