/**
 * The one reading of "which host and port does this go to", shared by the constraint language
 * (`host_in`), the HTTP connector's allowlist and the manifests' host lists. Hosts are read by
 * the WHATWG URL parser, the one fetch uses: `https://api.x.com@evil.com/` goes to evil.com,
 * `API.X.com.` is `api.x.com`, `0x7f.1` is `127.0.0.1`.
 */

/** A host name (lower case, one trailing dot dropped) and a port; null port = any port. */
export interface HostPort {
  host: string;
  port: number | null;
}

/** A host and the port a request goes to. */
export type Target = { host: string; port: number };

const DEFAULT_PORT: Readonly<Record<string, number>> = { "http:": 80, "https:": 443 };

/** Where an http(s) URL goes, its scheme's default port made explicit; null for another scheme or no host. */
export function urlTarget(url: URL): Target | null {
  const fallback = DEFAULT_PORT[url.protocol];
  if (fallback === undefined || url.hostname === "") return null;
  return { host: canonicalHost(url.hostname), port: url.port === "" ? fallback : Number(url.port) };
}

/** `urlTarget` of a string; null for anything that is not an absolute http(s) URL. */
export function readUrlTarget(value: string): Target | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  return urlTarget(url);
}

// `name`, `name:port`, `[v6]` or `[v6]:port`; nothing that could carry a scheme, userinfo or a path.
const ENTRY = /^(\[[0-9A-Fa-f:.]+\]|[^\s/\\?#@:[\]]+)(?::(\d{1,5}))?$/;

/**
 * One host list entry: a host name, optionally with a port, read by the same parser as URLs so
 * that entries and targets compare as the parser would send them. Null for anything else.
 */
export function readHostEntry(entry: string): HostPort | null {
  const match = ENTRY.exec(entry);
  if (match === null) return null;
  const port = match[2] === undefined ? null : Number(match[2]);
  if (port !== null && port > 65535) return null;
  try {
    return { host: canonicalHost(new URL(`http://${match[1]}/`).hostname), port };
  } catch {
    return null;
  }
}

/** `host:port`, as allowlists spell it. */
export function formatTarget(target: Target): string {
  return `${target.host}:${target.port}`;
}

// `api.x.com.` is the same DNS name as `api.x.com`; non-special schemes keep case, so fold it too.
function canonicalHost(hostname: string): string {
  const lower = hostname.toLowerCase();
  return lower.endsWith(".") ? lower.slice(0, -1) : lower;
}
