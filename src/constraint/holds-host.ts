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
  const target = prefixTarget(prefix);
  if (target === null) return "maybe";
  return hostAllowed(entries, target) ? "yes" : "no";
}

/**
 * Where every string starting with `prefix` goes, when the prefix holds the whole authority (see above); null
 * otherwise.
 */
function prefixTarget(prefix: string): Readonly<{ host: string; port: number }> | null {
  return AUTHORITY.test(prefix) ? urlHostPort(prefix) : null;
}

const DEFAULT_PORT: Readonly<Record<string, number>> = { "http:": 80, "https:": 443 };

/**
 * The one host a URL goes to, as `host` or `host:port` (the port only when it is not the
 * scheme's default); null for no http(s) URL. With `prefix`, the host every string starting with
 * `url` goes to, null when the prefix does not decide it.
 */
export function urlHost(url: string, prefix: boolean): string | null {
  const target = prefix ? prefixTarget(url) : urlHostPort(url);
  if (target === null) return null;
  return target.port === DEFAULT_PORT[new URL(url).protocol] ? target.host : `${target.host}:${target.port}`;
}
