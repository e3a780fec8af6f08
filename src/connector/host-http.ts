import { z } from "zod";
import { canonicalUrl } from "../constraint/index.js";
import { CountersignError } from "../model/index.js";
import type { Capabilities } from "./capabilities.js";
import { formatTarget, urlTarget } from "../model/index.js";
import type { Limits } from "./limits.js";

/** What a plugin may ask of the `http_request` host function. */
export const HttpRequest = z
  .object({
    method: z.enum(["GET", "POST", "PUT", "PATCH", "DELETE"]),
    url: z.string().min(1),
    headers: z.record(z.string(), z.string()).default({}),
    body: z.string().optional(),
  })
  .strict();
export type HttpRequest = z.infer<typeof HttpRequest>;

export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

function denied(message: string, details: Record<string, unknown>): CountersignError {
  return new CountersignError("capability_denied", "connector", message, { details });
}

/**
 * An absolute URL the capabilities allow; a relative one resolves under the connection's
 * base_url. The URL must be in canonical form (canonical-url.ts) as written, so that the request
 * goes to the path the plugin named and the server cannot decode another one out of it: the
 * program's URLs arrive so (the wrapper refused any other), and a plugin's own path (a draft id)
 * cannot climb out of its API with `..`, `%2e` or `%2f`.
 */
function allowedUrl(caps: Capabilities, raw: string): URL {
  let full = raw;
  if (raw.startsWith("/")) {
    if (caps.baseUrl === null)
      throw denied(`${caps.connector}: a relative URL needs a base_url in the connection`, { url: raw });
    // `//host/...` would name another host to a URL parser; here a relative URL is a path only.
    if (raw.startsWith("//")) throw denied(`${caps.connector}: a protocol-relative URL is refused`, { url: raw });
    full = caps.baseUrl.origin + caps.baseUrl.pathname.replace(/\/$/, "") + raw;
  }
  const form = canonicalUrl(full);
  if (!form.ok) {
    if (form.why === "not_a_url") throw denied(`${caps.connector}: not a URL: ${raw}`, { url: raw });
    if (form.why === "scheme")
      throw denied(`${caps.connector}: only http and https URLs are allowed`, { url: form.canonical });
    if (form.why === "userinfo")
      throw denied(`${caps.connector}: URLs with credentials are refused`, { url: new URL(full).origin });
    throw denied(`${caps.connector}: URL not in canonical form (${form.why.replaceAll("_", " ")}): ${raw}`, {
      url: raw,
      why: form.why,
    });
  }
  const url = new URL(form.canonical);
  const host = hostPort(url)!; // an http(s) URL: canonicalUrl refuses any other
  if (!caps.hosts.has(host))
    throw denied(`${caps.connector}: host ${host} is not in the allowlist`, { host, allowed: [...caps.hosts] });
  return url;
}

/** The plugin's headers minus the ones the host owns. */
function requestHeaders(caps: Capabilities, asked: Record<string, string>): Headers {
  const owned = new Set([
    "host",
    "content-length",
    "cookie",
    (caps.credential?.header ?? "authorization").toLowerCase(),
  ]);
  const headers = new Headers();
  for (const [name, value] of Object.entries(asked)) if (!owned.has(name.toLowerCase())) headers.set(name, value);
  return headers;
}

/** The credential, when the URL is the base_url's host: it goes to no other. */
function credentialFor(caps: Capabilities, url: URL): Capabilities["credential"] {
  return caps.credential !== null && caps.baseUrl !== null && hostPort(url) === hostPort(caps.baseUrl)
    ? caps.credential
    : null;
}

async function readCapped(res: Response, limit: number, url: URL): Promise<string> {
  const tooLarge = () =>
    new CountersignError(
      "resource_limit_exceeded",
      "connector",
      `response from ${url.host} is larger than ${limit} bytes`,
      {
        details: { limit_bytes: limit, host: url.host },
      },
    );
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > limit) {
    await res.body?.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (res.body !== null) {
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel();
        throw tooLarge();
      }
      chunks.push(value);
    }
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Perform one request for a plugin: allowlisted host:port only, credential injected here (never
 * shown to the plugin), body capped. A credential that cannot be had (an OAuth refresh refused)
 * stops the call before anything is sent. A 401 to a request that carried a renewable credential
 * renews it and sends the request once more: the API refused the first, so it did nothing. Redirects are never
 * followed, whatever the method: the 3xx
 * answer (status, headers with Location, body) goes back to the plugin, and so to the program, as
 * any other. A next request to the Location is a new call, checked against the grant and the
 * policy like the first; following it here would send the approved body to a path nobody checked.
 */
export async function httpRequest(
  caps: Capabilities,
  limits: Limits,
  req: HttpRequest,
  signal: AbortSignal,
): Promise<HttpAnswer> {
  const url = allowedUrl(caps, req.url);
  const credential = credentialFor(caps, url);
  const send = async (credentialValue: string | null): Promise<Response> => {
    const headers = requestHeaders(caps, req.headers);
    if (credential !== null && credentialValue !== null) headers.set(credential.header, credentialValue);
    try {
      return await fetch(url, { method: req.method, headers, body: req.body, redirect: "manual", signal });
    } catch (err) {
      throw new CountersignError(
        "network_error",
        "connector",
        `${req.method} ${url.origin}${url.pathname} failed: ${(err as Error).message}`,
        {
          retriable: true,
          details: { host: url.host },
        },
      );
    }
  };
  let res = await send(credential === null ? null : await credential.value());
  if (res.status === 401 && credential?.renew != null) {
    await res.body?.cancel();
    res = await send(await credential.renew());
  }
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value;
  });
  return { status: res.status, headers, body: await readCapped(res, limits.maxResponseBytes, url) };
}

/** `host:port` of an http(s) URL, as allowlists spell it; null for another scheme. */
function hostPort(url: URL): string | null {
  const target = urlTarget(url);
  return target === null ? null : formatTarget(target);
}
