/**
 * The canonical form of a URL argument (`format = "url"`): the WHATWG serialization (`href`) the
 * HTTP connector sends. A constraint is checked on this form and the connector gets exactly it,
 * so no parser downstream reads another URL than the one checked.
 *
 * The raw text must already be that form, up to the differences a person would not notice:
 * - the scheme and the host in lower case (`HTTPS://API.X.com` -> `https://api.x.com`);
 * - the scheme's default port dropped (`:443` on https, `:80` on http, or a bare `:`);
 * - an empty path written as `/` (`https://x.com` and `https://x.com?q` -> `https://x.com/...`).
 * Anything else is refused, with the reason:
 * - `not_a_url`: no `scheme://authority` form, or the parser refuses it;
 * - `scheme`: not http or https;
 * - `userinfo`: `user:pw@host`, which hides the host a person reads first;
 * - `whitespace_or_control`: C0 controls, space or DEL anywhere (the parser drops tab, CR and LF
 *   and trims the rest, percent-encodes spaces inside);
 * - `backslash`: the parser reads `\` as `/` in http(s) URLs;
 * - `dot_segment`: a `.` or `..` path segment, also with a `;` parameter (`..;x`, which some
 *   servers read as `..`); the parser removes the plain ones;
 * - `encoded_separator`: `%2e`, `%2f` or `%5c` (any case) in the path, which a server may decode
 *   into a dot segment or a separator after the check;
 * - `host_form`: a host the parser rewrites (IPv4 in hex or short forms, IDNA, percent-encoding,
 *   IPv6 spellings);
 * - `changed`: any other rewrite of the path, query or fragment: characters percent-encoded
 *   (non-ASCII, `"`, `<`, `>`, ...).
 * Pure; no I/O.
 */

export type UrlForm = { ok: true; canonical: string } | { ok: false; why: UrlRefusal; canonical?: string };
export type UrlRefusal =
  | "not_a_url"
  | "scheme"
  | "userinfo"
  | "whitespace_or_control"
  | "backslash"
  | "dot_segment"
  | "encoded_separator"
  | "host_form"
  | "changed";

// scheme `://` authority, then the path, query and fragment as written.
const SHAPE = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)(.*)$/s;
const DEFAULT_PORT: Readonly<Record<string, string>> = { "http:": "80", "https:": "443" };

export function canonicalUrl(raw: string): UrlForm {
  if (/[\0-\x20\x7f]/.test(raw)) return { ok: false, why: "whitespace_or_control" };
  if (raw.includes("\\")) return { ok: false, why: "backslash" };
  const shape = SHAPE.exec(raw);
  if (shape === null) return { ok: false, why: "not_a_url" };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, why: "not_a_url" };
  }
  const canonical = url.href;
  const defaultPort = DEFAULT_PORT[url.protocol];
  if (defaultPort === undefined) return { ok: false, why: "scheme", canonical };
  if (url.username !== "" || url.password !== "" || shape[2]!.includes("@"))
    return { ok: false, why: "userinfo", canonical };
  const rest = shape[3]!;
  const path = rest.replace(/[?#].*$/s, "");
  if (path.split("/").some((segment) => /^\.\.?(;|$)/.test(segment)))
    return { ok: false, why: "dot_segment", canonical };
  if (/%(2e|2f|5c)/i.test(path)) return { ok: false, why: "encoded_separator", canonical };
  let host = shape[2]!.replace(/[A-Z]/g, (c) => c.toLowerCase());
  if (host.endsWith(":")) host = host.slice(0, -1);
  else if (host.endsWith(`:${defaultPort}`)) host = host.slice(0, -(defaultPort.length + 1));
  if (url.host !== host) return { ok: false, why: "host_form", canonical };
  if (
    canonical !==
    `${url.protocol}//${url.host}${rest === "" || rest.startsWith("?") || rest.startsWith("#") ? `/${rest}` : rest}`
  ) {
    return { ok: false, why: "changed", canonical };
  }
  return { ok: true, canonical };
}
