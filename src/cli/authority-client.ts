import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CountersignError, ErrorEnvelope } from "../model/errors.js";
import { localAuthorityUrl, SUBMITTER_TOKEN_FILE } from "../store/index.js";

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

/**
 * POST JSON to the authority. An answer in the error envelope is thrown as that CountersignError;
 * a connection that fails is `Unreachable`.
 */
export async function postJson(address: AuthorityAddress, path: string, body: unknown, timeoutMs = 60_000): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(address.url + path, {
      method: "POST",
      headers: { authorization: `Bearer ${address.token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    throw new Unreachable(`the authority at ${address.url} cannot be reached: ${(err as Error).message}`);
  }
  const text = await response.text();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CountersignError("network_error", "authority", `the authority at ${address.url} answered HTTP ${response.status} with no JSON`, { details: { status: response.status } });
  }
  const envelope = ErrorEnvelope.safeParse(value);
  if (envelope.success) {
    const e = envelope.data.error;
    throw new CountersignError(e.class, e.boundary, e.message, { retriable: e.retriable, ...(e.request_id === undefined ? {} : { requestId: e.request_id }), ...(e.details === undefined ? {} : { details: e.details }) });
  }
  if (!response.ok) throw new CountersignError("network_error", "authority", `the authority at ${address.url} answered HTTP ${response.status}`, { details: { status: response.status } });
  return value;
}
