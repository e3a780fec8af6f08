import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as oauth from "oauth4webapi";
import { z } from "zod";
import { CountersignError, makePrivateDir } from "../model/index.js";
import { writeFileAtomic } from "../store/index.js";
import type { OAuthCredential } from "./oauth-credential.js";

/** What the audit records of one refresh: which connection, why, and whether it worked; never a token. */
export interface CredentialRefresh {
  connection: string;
  reason: "expired" | "unauthorized";
  ok: boolean;
  error?: string; // the token endpoint's error code, or "unreachable"
}

/** What the host needs to hold OAuth credentials: where to cache access tokens, the clock, and the audit. */
export interface CredentialHost {
  dataDir: string;
  now?: () => Date; // default: the real clock
  audit?: (refresh: CredentialRefresh) => Promise<void>;
}

/** An access token for each request, from the cache or the token endpoint; `renew` after the API refused one (401). */
export interface AccessTokens {
  current(): Promise<string>;
  renew(): Promise<string>;
}

/** A token this close to its expiry is renewed first: a request made with it could outlive it. */
const RENEW_BEFORE_MS = 60_000;
/** The lifetime assumed when the token endpoint names none; a 401 before it ends renews it anyway. */
const DEFAULT_LIFETIME_S = 3600;
const TOKEN_ENDPOINT_TIMEOUT_MS = 30_000;

const CachedToken = z
  .object({
    access_token: z.string().min(1),
    expires_at: z.number().int(), // ms since the epoch
    refresh_sha256: z.string().regex(/^[0-9a-f]{64}$/), // the refresh token it came from: a new `connect` makes it stale
  })
  .strict();

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

/** Where the access token of `connection` is cached (0600, in the data directory: no program reaches it). */
export function accessTokenCachePath(dataDir: string, connection: string): string {
  return join(dataDir, "credentials", `${connection}.access-token.json`);
}

/** Cache an access token of `connection` (0600, written whole), bound to the refresh token it came from. */
export function cacheAccessToken(
  dataDir: string,
  connection: string,
  token: { accessToken: string; expiresAt: number; refreshToken: string },
): void {
  makePrivateDir(join(dataDir, "credentials"));
  const cached: z.infer<typeof CachedToken> = {
    access_token: token.accessToken,
    expires_at: token.expiresAt,
    refresh_sha256: sha256(token.refreshToken),
  };
  writeFileAtomic(accessTokenCachePath(dataDir, connection), JSON.stringify(cached), 0o600);
}

/** The lifetime of an access token the token endpoint gave `expires_in` for, in ms from now. */
export function tokenLifetimeMs(expiresIn: number | undefined): number {
  return (expiresIn ?? DEFAULT_LIFETIME_S) * 1000;
}

// One refresh at a time per connection in this process: concurrent calls share its answer.
const refreshing = new Map<string, Promise<string>>();

function credentialError(connection: string, message: string, reason: string): CountersignError {
  return new CountersignError("credential_error", "connector", `${connection}: ${message}`, {
    details: { connection, reason },
  });
}

function readSecretFile(connection: string, path: string, what: string): string {
  let text: string;
  try {
    text = readFileSync(path, "utf8").trim();
  } catch {
    throw credentialError(
      connection,
      `cannot read the ${what} file ${path}: run \`countersign connect ${connection}\` again`,
      "unreadable",
    );
  }
  if (text === "" || /[\r\n]/.test(text))
    throw credentialError(
      connection,
      `the ${what} file ${path} must hold one line: run \`countersign connect ${connection}\` again`,
      "malformed",
    );
  return text;
}

function readCache(path: string): z.infer<typeof CachedToken> | null {
  try {
    const parsed = CachedToken.safeParse(JSON.parse(readFileSync(path, "utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null; // missing or torn by hand: a refresh writes it anew
  }
}

/** What to do about an error code of the token endpoint. */
function remedy(connection: string, code: string): string {
  if (code === "invalid_client" || code === "unauthorized_client")
    return `check client_id and client_secret_file in [${connection}.oauth], then run \`countersign connect ${connection}\` again`;
  return `run \`countersign connect ${connection}\` again`;
}

/**
 * The access tokens of one connection's OAuth credential. A token is taken from the cache while it
 * has more than a minute left; else the refresh token buys a new one (refresh_token grant), which
 * is cached before it is used. Every refresh, good or bad, goes to the audit. A refresh that fails
 * is a credential_error naming the connection and what to do: the caller sends nothing.
 */
export function accessTokens(connection: string, credential: OAuthCredential, host: CredentialHost): AccessTokens {
  const cachePath = accessTokenCachePath(host.dataDir, connection);
  const now = (): number => (host.now?.() ?? new Date()).getTime();

  async function refresh(reason: CredentialRefresh["reason"], refreshToken: string): Promise<string> {
    const secret = readSecretFile(connection, credential.client_secret_file, "client secret");
    const tokenUrl = new URL(credential.token_url);
    const as: oauth.AuthorizationServer = { issuer: tokenUrl.origin, token_endpoint: credential.token_url };
    const client: oauth.Client = { client_id: credential.client_id };
    const audited = async (ok: boolean, error?: string): Promise<void> => {
      await host.audit?.({ connection, reason, ok, ...(error === undefined ? {} : { error }) });
    };
    let answer: oauth.TokenEndpointResponse;
    try {
      const response = await oauth.refreshTokenGrantRequest(as, client, oauth.ClientSecretPost(secret), refreshToken, {
        signal: AbortSignal.timeout(TOKEN_ENDPOINT_TIMEOUT_MS),
        ...(tokenUrl.protocol === "http:" ? { [oauth.allowInsecureRequests]: true } : {}),
      });
      answer = await oauth.processRefreshTokenResponse(as, client, response);
    } catch (err) {
      const code =
        err instanceof oauth.ResponseBodyError
          ? err.error
          : err instanceof oauth.OperationProcessingError
            ? "invalid_response"
            : "unreachable";
      await audited(false, code);
      if (code === "unreachable")
        throw credentialError(connection, `cannot reach the token endpoint ${tokenUrl.origin}: try again later`, code);
      if (code === "invalid_response")
        throw credentialError(
          connection,
          `the token endpoint ${tokenUrl.origin} gave no usable access token: ${remedy(connection, code)}`,
          code,
        );
      throw credentialError(
        connection,
        `the token endpoint ${tokenUrl.origin} refused to renew the access token (${code}): ${remedy(connection, code)}`,
        code,
      );
    }
    let source = refreshToken;
    if (answer.refresh_token !== undefined && answer.refresh_token !== refreshToken) {
      // A rotated refresh token replaces the old one, which the endpoint may no longer take.
      writeFileAtomic(credential.refresh_token_file, `${answer.refresh_token}\n`, 0o600);
      source = answer.refresh_token;
    }
    cacheAccessToken(host.dataDir, connection, {
      accessToken: answer.access_token,
      expiresAt: now() + tokenLifetimeMs(answer.expires_in),
      refreshToken: source,
    });
    await audited(true);
    return answer.access_token;
  }

  function shared(reason: CredentialRefresh["reason"], refreshToken: string): Promise<string> {
    let pending = refreshing.get(cachePath);
    if (pending === undefined) {
      pending = refresh(reason, refreshToken).finally(() => refreshing.delete(cachePath));
      refreshing.set(cachePath, pending);
    }
    return pending;
  }

  return {
    async current() {
      const pending = refreshing.get(cachePath);
      if (pending !== undefined) return pending;
      const refreshToken = readSecretFile(connection, credential.refresh_token_file, "refresh token");
      const cached = readCache(cachePath);
      if (
        cached !== null &&
        cached.refresh_sha256 === sha256(refreshToken) &&
        cached.expires_at - now() > RENEW_BEFORE_MS
      )
        return cached.access_token;
      return shared("expired", refreshToken);
    },
    async renew() {
      return shared("unauthorized", readSecretFile(connection, credential.refresh_token_file, "refresh token"));
    },
  };
}
