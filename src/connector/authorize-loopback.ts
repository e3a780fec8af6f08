import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import * as oauth from "oauth4webapi";
import { CountersignError } from "../model/index.js";

/**
 * One authorization: the provider's endpoints, the client, the scopes, and extra parameters of the authorization URL
 * (Google's access_type=offline).
 */
export interface LoopbackAuthorization {
  connection: string; // named in errors
  authUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  scopes: readonly string[];
  authParams?: Readonly<Record<string, string>>;
  onUrl: (url: string) => void | Promise<void>; // show the URL to the person (print it, open a browser)
  signal?: AbortSignal;
  timeoutMs: number; // how long to wait for the redirect
}

/** What the code exchange gave: the refresh token to keep and the first access token. */
export interface Authorized {
  refreshToken: string;
  accessToken: string;
  expiresIn: number | undefined;
}

function failure(connection: string, message: string, reason: string): CountersignError {
  return new CountersignError("credential_error", "connector", `${connection}: ${message}`, {
    details: { connection, reason },
  });
}

const PAGE = (text: string): string => `<!doctype html><meta charset="utf-8"><title>countersign</title><p>${text}</p>`;

/**
 * The OAuth 2.0 authorization code flow of a native app (RFC 8252): listen on 127.0.0.1 on a port
 * the system picks, have the person open the authorization URL (with a PKCE challenge and a
 * random `state`), take the one redirect that comes back to that listener, check its `state`,
 * and exchange the code (with the PKCE verifier) at the token endpoint. The listener closes after
 * the first redirect, good or bad; a redirect with another state, an error from the provider, a
 * code the token endpoint refuses or an answer without a refresh token is a credential_error.
 */
export async function authorizeWithLoopback(request: LoopbackAuthorization): Promise<Authorized> {
  const { connection } = request;
  const tokenUrl = new URL(request.tokenUrl);
  const as: oauth.AuthorizationServer = {
    issuer: new URL(request.authUrl).origin,
    authorization_endpoint: request.authUrl,
    token_endpoint: request.tokenUrl,
  };
  const client: oauth.Client = { client_id: request.clientId };
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();

  let answer: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  const server = createServer((req, res) => answer?.(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  try {
    const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const url = new URL(request.authUrl);
    const params = {
      client_id: request.clientId,
      redirect_uri: redirectUri,
      response_type: "code",
      scope: request.scopes.join(" "),
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: "S256",
      ...request.authParams,
    };
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);

    const redirected = new Promise<URL>((resolve, reject) => {
      timer = setTimeout(
        () =>
          reject(
            failure(
              connection,
              `no redirect came back within ${Math.round(request.timeoutMs / 1000)} s: run \`countersign connect ${connection}\` again`,
              "timeout",
            ),
          ),
        request.timeoutMs,
      );
      const aborted = (): void => reject(failure(connection, "stopped before the provider redirected back", "aborted"));
      request.signal?.addEventListener("abort", aborted, { once: true });
      answer = (req, res) => {
        const at = new URL(req.url ?? "/", redirectUri);
        // A browser asks for its icon too: only the redirect itself (its path, a code or an error) counts.
        if (
          req.method !== "GET" ||
          at.pathname !== "/" ||
          (!at.searchParams.has("code") && !at.searchParams.has("error"))
        ) {
          res.writeHead(404, { "content-type": "text/plain" }).end("not found");
          return;
        }
        answer = (_req, late) => void late.writeHead(410, { "content-type": "text/plain" }).end("already answered");
        clearTimeout(timer);
        request.signal?.removeEventListener("abort", aborted);
        const good = at.searchParams.get("state") === state && at.searchParams.has("code");
        res.writeHead(good ? 200 : 400, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
        res.end(
          PAGE(
            good
              ? "countersign has the authorization. You may close this tab."
              : "countersign did not get the authorization. See the terminal.",
          ),
        );
        resolve(at);
      };
    });
    redirected.catch(() => undefined); // awaited below; onUrl may fail first
    await request.onUrl(url.href);
    const back = await redirected;

    let callback: URLSearchParams;
    try {
      callback = oauth.validateAuthResponse(as, client, back, state);
    } catch (err) {
      if (err instanceof oauth.AuthorizationResponseError)
        throw failure(
          connection,
          `the provider refused the authorization (${err.error}): run \`countersign connect ${connection}\` again`,
          err.error,
        );
      throw failure(
        connection,
        "the redirect did not answer this authorization (its state differs): run `countersign connect " +
          connection +
          "` again",
        "state_mismatch",
      );
    }
    const insecure = tokenUrl.protocol === "http:" ? { [oauth.allowInsecureRequests]: true } : {};
    let tokens: oauth.TokenEndpointResponse;
    try {
      const response = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        oauth.ClientSecretPost(request.clientSecret),
        callback,
        redirectUri,
        verifier,
        {
          signal: AbortSignal.timeout(30_000),
          ...insecure,
        },
      );
      tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
    } catch (err) {
      const code = err instanceof oauth.ResponseBodyError ? err.error : "unreachable";
      const fix =
        code === "invalid_client" || code === "unauthorized_client"
          ? "check --client-id and --client-secret-file"
          : "run `countersign connect " + connection + "` again";
      throw failure(
        connection,
        `the token endpoint ${tokenUrl.origin} did not exchange the code (${code}): ${fix}`,
        code,
      );
    }
    if (tokens.refresh_token === undefined) {
      throw failure(
        connection,
        "the provider gave no refresh token: the host could not renew access; revoke the app's access in the account and connect again",
        "no_refresh_token",
      );
    }
    return { refreshToken: tokens.refresh_token, accessToken: tokens.access_token, expiresIn: tokens.expires_in };
  } finally {
    clearTimeout(timer);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}
