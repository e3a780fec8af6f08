import type { Verdict3 } from "../model/index.js";
import { hostAllowed, urlHostPort } from "./url-host.js";

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*/;
// Scheme, `//`, a non-empty authority, then the character that ends it for http(s).
const AUTHORITY = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/\\?#\t\n\r]+[/\\?#]/;

/**
 * `host_in` over the strings starting with `prefix`, read as the WHATWG URL parser reads them.
 * The parser strips leading controls and spaces and deletes tabs and newlines anywhere, so any of
 * those where it matters gives maybe.
 * - The host is decided when the prefix holds the scheme, `//`, the whole authority and the `/`,
 *   `\`, `?` or `#` that ends it: nothing after that can change the host or make parsing fail.
 * - Every member fails when the prefix fixes a scheme other than http(s), or begins with
 *   something that can never start a scheme (the parser then has no base URL and fails).
 */
export function holdsHostIn(entries: readonly string[], prefix: string): Verdict3 {
  const scheme = SCHEME.exec(prefix)?.[0];
  if (scheme === undefined) return prefix === "" || /^[\0-\x20]/.test(prefix) ? "maybe" : "no";
  const after = prefix[scheme.length];
  if (after === undefined || after === "\t" || after === "\n" || after === "\r") return "maybe";
  if (after !== ":") return "no";
  if (!["http", "https"].includes(scheme.toLowerCase())) return "no";
  if (!AUTHORITY.test(prefix)) return "maybe";
  const target = urlHostPort(prefix);
  if (target === null) return "maybe";
  return hostAllowed(entries, target) ? "yes" : "no";
}
