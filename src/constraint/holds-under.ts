import type { Verdict3 } from "../model/index.js";
import { normalizePath } from "./normalize-path.js";

/**
 * `under` over the strings starting with `prefix` and ending with `suffix`. Never yes: the unknown
 * middle can always hold `/../..` and climb out. Hardly ever no, for the same reason: from any
 * absolute prefix the middle can climb to `/` and walk down into the base, deep enough that the
 * suffix's own `..` stay inside (`/etc/${x}` can be `/etc/../home/u/Sandbox/f`). No only when
 * every member fails to normalize: a relative start, a NUL, or a base that is not absolute.
 */
export function holdsUnder(base: string, prefix: string, suffix: string): Verdict3 {
  if (normalizePath(base) === null) return "no";
  if (prefix.includes("\0") || suffix.includes("\0")) return "no";
  if (prefix !== "" && !prefix.startsWith("/")) return "no";
  return "maybe";
}
