import { memoizeString } from "./string-memo.js";

/** A host name (lower case, one trailing dot dropped) and a port; null port = any port. */
export interface HostPort {
  host: string;
  port: number | null;
}

const DEFAULT_PORT: Readonly<Record<string, number>> = { "http:": 80, "https:": 443 };

/**
 * The host and effective port an http(s) URL goes to, as the WHATWG URL parser (the one the
 * HTTP connector uses) reads it: `https://api.x.com@evil.com/` goes to evil.com. Null for
 * anything else — no scheme, another scheme, no host. Remembered per URL (frozen results).
 */
export const urlHostPort: (value: string) => Readonly<{ host: string; port: number }> | null = memoizeString((value) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  const fallback = DEFAULT_PORT[url.protocol];
  if (fallback === undefined || url.hostname === "") return null;
  return Object.freeze({ host: canonicalHost(url.hostname), port: url.port === "" ? fallback : Number(url.port) });
});

// `name`, `name:port`, `[v6]` or `[v6]:port`; nothing that could carry userinfo or a path.
const ENTRY = /^(\[[0-9A-Fa-f:.]+\]|[^\s/\\?#@:[\]]+)(?::(\d{1,5}))?$/;

/**
 * One `host_in` entry: a host name, optionally with a port. Parsed by the same URL parser as the
 * values, so `API.X.com`, `0x7f.1` and `127.0.0.1` compare as the parser would send them.
 * Null for an entry that is not a plain host. Remembered per entry (frozen results).
 */
export const parseHostEntry: (entry: string) => Readonly<HostPort> | null = memoizeString((entry) => {
  const match = ENTRY.exec(entry);
  if (match === null) return null;
  const port = match[2] === undefined ? null : Number(match[2]);
  if (port !== null && port > 65535) return null;
  try {
    return Object.freeze({ host: canonicalHost(new URL(`http://${match[1]}/`).hostname), port });
  } catch {
    return null;
  }
});

/** Host names compare exactly (no suffix match); an entry without a port allows every port. */
export function hostAllowed(entries: readonly string[], target: { host: string; port: number }): boolean {
  return entries.some((entry) => {
    const allowed = parseHostEntry(entry);
    return allowed !== null && allowed.host === target.host && (allowed.port === null || allowed.port === target.port);
  });
}

// `api.x.com.` is the same DNS name as `api.x.com`; non-special schemes keep case, so fold it too.
function canonicalHost(hostname: string): string {
  const lower = hostname.toLowerCase();
  return lower.endsWith(".") ? lower.slice(0, -1) : lower;
}
