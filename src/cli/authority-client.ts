import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { join } from "node:path";
import { CountersignError, readErrorEnvelope } from "../model/errors-plain.js"; // a light entry: `check` loads no zod
// Not the store index: `check` must not load the database drivers to find its authority.
import { localAuthorityUrl } from "../store/authority-url.js";
import { SUBMITTER_TOKEN_FILE } from "../store/data-dir-files.js";

/** Where this machine's authority answers, and the submitter token to call it with. */
export interface AuthorityAddress {
  url: string;
  token: string;
}

/**
 * The authority `check` and `run` talk to: $COUNTERSIGN_URL, else the URL the data directory's
 * authority last served at (authority.json); the token from $COUNTERSIGN_TOKEN, else the data
 * directory's submitter.token. Undefined when either is missing.
 */
export function findAuthority(env: NodeJS.ProcessEnv, dataDir: string): AuthorityAddress | undefined {
  const url = nonEmpty(env.COUNTERSIGN_URL) ?? localAuthorityUrl(dataDir);
  const token = nonEmpty(env.COUNTERSIGN_TOKEN) ?? readToken(join(dataDir, SUBMITTER_TOKEN_FILE));
  return url === undefined || token === undefined ? undefined : { url: url.replace(/\/+$/, ""), token };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

function readToken(file: string): string | undefined {
  try {
    return nonEmpty(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
}

/** The authority could not be reached at all (nothing listens, no answer): the caller may work without it. */
export class Unreachable extends Error {}

/** How a call to the authority may be bounded: a deadline for the answer, and a signal that gives up. */
export interface CallOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** The largest answer read from the authority: a bigger one is refused before it fills the memory. */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/**
 * POST JSON to the authority (node:http, not fetch: `check` runs once per process, and loading
 * fetch costs more than the call). An answer in the error envelope is thrown as that
 * CountersignError; a connection that fails, or an answer that is not JSON, is `Unreachable`.
 */
export async function postJson(
  address: AuthorityAddress,
  path: string,
  body: unknown,
  timeoutMs = 60_000,
): Promise<unknown> {
  return callJson(address, "POST", path, body, { timeoutMs });
}

/** One call to the authority with JSON both ways (`body` undefined: none), answered as postJson says. */
export async function callJson(
  address: AuthorityAddress,
  method: "GET" | "POST",
  path: string,
  body: unknown,
  options: CallOptions = {},
): Promise<unknown> {
  let answer: { status: number; text: string };
  try {
    answer = await send(address, method, path, body === undefined ? undefined : JSON.stringify(body), options);
  } catch (err) {
    if (options.signal?.aborted === true || err instanceof CountersignError) throw err;
    throw new Unreachable(`the authority at ${address.url} cannot be reached: ${(err as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(answer.text);
  } catch {
    // Not an authority at all (a stale URL that another program now answers): as if nobody listened.
    throw new Unreachable(`${address.url} answered HTTP ${answer.status} with no JSON: not a countersign authority`);
  }
  const error = envelopeError(value);
  if (error !== undefined) throw error;
  if (answer.status < 200 || answer.status > 299)
    throw new CountersignError(
      "network_error",
      "authority",
      `the authority at ${address.url} answered HTTP ${answer.status}`,
      { details: { status: answer.status } },
    );
  return value;
}

/** An answer in the error envelope as the CountersignError it describes; undefined for any other answer. */
export function envelopeError(value: unknown): CountersignError | undefined {
  const envelope = readErrorEnvelope(value);
  if (envelope === undefined) return undefined;
  const e = envelope.error;
  return new CountersignError(e.class, e.boundary, e.message, {
    retriable: e.retriable,
    ...(e.request_id === undefined ? {} : { requestId: e.request_id }),
    ...(e.details === undefined ? {} : { details: e.details }),
  });
}

function send(
  address: AuthorityAddress,
  method: string,
  path: string,
  body: string | undefined,
  { timeoutMs = 60_000, signal }: CallOptions,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = address.url.startsWith("https:") ? httpsRequest : httpRequest;
    const headers: Record<string, string | number> = { authorization: `Bearer ${address.token}` };
    if (body !== undefined)
      Object.assign(headers, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    const req = request(
      address.url + path,
      { method, headers, timeout: timeoutMs, ...(signal === undefined ? {} : { signal }) },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_ANSWER_BYTES) return void chunks.push(chunk);
          req.destroy();
          reject(
            new CountersignError(
              "network_error",
              "authority",
              `the authority at ${address.url} answered with more than ${MAX_ANSWER_BYTES} bytes`,
              { details: { limit: MAX_ANSWER_BYTES } },
            ),
          );
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end(body);
  });
}
