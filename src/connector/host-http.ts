import { z } from "zod";
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

const MAX_REDIRECTS = 5;

function denied(message: string, details: Record<string, unknown>): CountersignError {
  return new CountersignError("capability_denied", "connector", message, { details });
}

/** An absolute URL the capabilities allow; a relative one resolves under the connection's base_url. */
function allowedUrl(caps: Capabilities, raw: string): URL {
  let url: URL;
  if (raw.startsWith("/")) {
    if (caps.baseUrl === null) throw denied(`${caps.connector}: a relative URL needs a base_url in the connection`, { url: raw });
    url = new URL(caps.baseUrl.pathname.replace(/\/$/, "") + raw, caps.baseUrl);
  } else {
    try {
      url = new URL(raw);
    } catch {
      throw denied(`${caps.connector}: not a URL: ${raw}`, { url: raw });
    }
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw denied(`${caps.connector}: only http and https URLs are allowed`, { url: url.href });
  if (url.username !== "" || url.password !== "") throw denied(`${caps.connector}: URLs with credentials are refused`, { url: url.origin });
  const host = hostPort(url)!; // an http(s) URL: checked just above
  if (!caps.hosts.has(host)) throw denied(`${caps.connector}: host ${host} is not in the allowlist`, { host, allowed: [...caps.hosts] });
  return url;
}

/** The plugin's headers minus the ones the host owns, plus the credential when the URL is the base_url's host. */
function requestHeaders(caps: Capabilities, url: URL, asked: Record<string, string>): Headers {
  const owned = new Set(["host", "content-length", "cookie", (caps.credential?.header ?? "authorization").toLowerCase()]);
  const headers = new Headers();
  for (const [name, value] of Object.entries(asked)) if (!owned.has(name.toLowerCase())) headers.set(name, value);
  if (caps.credential !== null && caps.baseUrl !== null && hostPort(url) === hostPort(caps.baseUrl)) {
    headers.set(caps.credential.header, caps.credential.value);
  }
  return headers;
}

async function readCapped(res: Response, limit: number, url: URL): Promise<string> {
  const tooLarge = () =>
    new CountersignError("resource_limit_exceeded", "connector", `response from ${url.host} is larger than ${limit} bytes`, {
      details: { limit_bytes: limit, host: url.host },
    });
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
 * shown to the plugin), redirects followed only on the same host:port, body capped.
 */
export async function httpRequest(caps: Capabilities, limits: Limits, req: HttpRequest, signal: AbortSignal): Promise<HttpAnswer> {
  let url = allowedUrl(caps, req.url);
  let method: string = req.method;
  let body = req.body;
  for (let hop = 0; ; hop++) {
    let res: Response;
    try {
      res = await fetch(url, { method, headers: requestHeaders(caps, url, req.headers), body, redirect: "manual", signal });
    } catch (err) {
      throw new CountersignError("network_error", "connector", `${method} ${url.origin}${url.pathname} failed: ${(err as Error).message}`, {
        retriable: true,
        details: { host: url.host },
      });
    }
    const location = res.headers.get("location");
    if (res.status >= 300 && res.status < 400 && location !== null) {
      await res.body?.cancel();
      const next = new URL(location, url);
      if (hostPort(next) === null || hostPort(next) !== hostPort(url)) throw denied(`${caps.connector}: redirect to another host (${hostPort(next)}) refused`, { from: url.host, to: next.host });
      if (hop + 1 >= MAX_REDIRECTS) throw new CountersignError("network_error", "connector", `too many redirects from ${url.host}`, { details: { host: url.host } });
      if (res.status === 303) [method, body] = ["GET", undefined];
      url = next;
      continue;
    }
    const headers: Record<string, string> = {};
    res.headers.forEach((value, name) => {
      if (name !== "set-cookie") headers[name] = value;
    });
    return { status: res.status, headers, body: await readCapped(res, limits.maxResponseBytes, url) };
  }
}

/** `host:port` of an http(s) URL, as allowlists spell it; null for another scheme. */
function hostPort(url: URL): string | null {
  const target = urlTarget(url);
  return target === null ? null : formatTarget(target);
}
