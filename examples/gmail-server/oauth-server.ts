// A local authorization server shaped like Google's, for trying `countersign connect` and for the
// OAuth tests: an authorize endpoint that redirects at once with a code (no person, no login
// page), and a token endpoint for the authorization_code grant (PKCE S256 checked) and the
// refresh_token grant. Access tokens expire by the server's clock; a revoked grant answers invalid_grant, a wrong client invalid_client.
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface OAuthServer {
  url: string;
  authUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** Every token request's grant type and outcome (e.g. "refresh_token ok", "refresh_token invalid_grant"). */
  tokenRequests: string[];
  /** The refresh tokens handed out, newest last. */
  refreshTokens: string[];
  /** Whether `token` is an access token this server issued and that has not expired: what the Gmail-shaped server asks. */
  accepts(token: string): boolean;
  /** Revoke every grant: its refresh tokens and access tokens stop working. */
  revokeAll(): void;
  /** End every access token now, as at the end of its hour (refresh tokens stay good). */
  expireAccessTokens(): void;
  close(): Promise<void>;
}

const random = (): string => randomBytes(24).toString("base64url");

export async function startOAuthServer(
  options: { port?: number; lifetimeSeconds?: number; now?: () => number } = {},
): Promise<OAuthServer> {
  const lifetime = options.lifetimeSeconds ?? 3599; // as Google's
  const now = options.now ?? Date.now;
  const clientId = "1234-test.apps.googleusercontent.com";
  const clientSecret = `GOCSPX-${random()}`;
  const codes = new Map<string, { challenge: string; redirectUri: string; scope: string }>();
  const grants = new Map<string, { scope: string; revoked: boolean }>(); // by refresh token
  const access = new Map<string, { expiresAt: number; refreshToken: string }>();
  const tokenRequests: string[] = [];
  const refreshTokens: string[] = [];

  const json = (res: ServerResponse, status: number, body: object): void => {
    res
      .writeHead(status, {
        "content-type": "application/json; charset=utf-8",
        "cache-control": "no-store",
        pragma: "no-cache",
      })
      .end(JSON.stringify(body));
  };

  function authorize(url: URL, res: ServerResponse): void {
    const q = url.searchParams;
    const redirectUri = q.get("redirect_uri") ?? "";
    // Google refuses a wrong client or a redirect off this machine on its own page, never at the redirect URI.
    if (q.get("client_id") !== clientId)
      return void res.writeHead(401, { "content-type": "text/plain" }).end("Error 401: invalid_client");
    if (!/^http:\/\/127\.0\.0\.1:\d+\//.test(redirectUri))
      return void res.writeHead(400, { "content-type": "text/plain" }).end("Error 400: redirect_uri_mismatch");
    const back = new URL(redirectUri);
    const state = q.get("state");
    if (state !== null) back.searchParams.set("state", state);
    if (
      q.get("response_type") !== "code" ||
      q.get("code_challenge_method") !== "S256" ||
      (q.get("code_challenge") ?? "") === ""
    ) {
      back.searchParams.set("error", "invalid_request");
    } else {
      const code = `4/${random()}`;
      codes.set(code, { challenge: q.get("code_challenge")!, redirectUri, scope: q.get("scope") ?? "" });
      back.searchParams.set("code", code);
      back.searchParams.set("scope", q.get("scope") ?? "");
    }
    res.writeHead(302, { location: back.href }).end();
  }

  function issue(
    refreshToken: string,
    scope: string,
  ): { access_token: string; expires_in: number; scope: string; token_type: string } {
    const token = `ya29.${random()}`;
    access.set(token, { expiresAt: now() + lifetime * 1000, refreshToken });
    return { access_token: token, expires_in: lifetime, scope, token_type: "Bearer" };
  }

  async function token(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const form = new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
    const grant = form.get("grant_type") ?? "";
    const refuse = (status: number, error: string): void => {
      tokenRequests.push(`${grant} ${error}`);
      json(res, status, {
        error,
        error_description:
          error === "invalid_grant" ? "Token has been expired or revoked." : "The OAuth client was not found.",
      });
    };
    if (form.get("client_id") !== clientId || form.get("client_secret") !== clientSecret)
      return refuse(401, "invalid_client");
    if (grant === "authorization_code") {
      const code = codes.get(form.get("code") ?? "");
      codes.delete(form.get("code") ?? ""); // a code is good once
      const verifier = form.get("code_verifier") ?? "";
      if (
        code === undefined ||
        code.redirectUri !== form.get("redirect_uri") ||
        createHash("sha256").update(verifier).digest("base64url") !== code.challenge
      )
        return refuse(400, "invalid_grant");
      const refreshToken = `1//${random()}`;
      grants.set(refreshToken, { scope: code.scope, revoked: false });
      refreshTokens.push(refreshToken);
      tokenRequests.push(`${grant} ok`);
      return json(res, 200, { ...issue(refreshToken, code.scope), refresh_token: refreshToken });
    }
    if (grant === "refresh_token") {
      const refreshToken = form.get("refresh_token") ?? "";
      const held = grants.get(refreshToken);
      if (held === undefined || held.revoked) return refuse(400, "invalid_grant");
      tokenRequests.push(`${grant} ok`);
      return json(res, 200, issue(refreshToken, held.scope));
    }
    return refuse(400, "unsupported_grant_type");
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (req.method === "GET" && url.pathname === "/o/oauth2/v2/auth") return authorize(url, res);
    if (req.method === "POST" && url.pathname === "/token") return void token(req, res).catch(() => res.destroy());
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", resolve);
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    authUrl: `${base}/o/oauth2/v2/auth`,
    tokenUrl: `${base}/token`,
    clientId,
    clientSecret,
    tokenRequests,
    refreshTokens,
    accepts(token) {
      const held = access.get(token);
      return held !== undefined && held.expiresAt > now() && grants.get(held.refreshToken)?.revoked === false;
    },
    revokeAll() {
      for (const grant of grants.values()) grant.revoked = true;
    },
    expireAccessTokens() {
      for (const held of access.values()) held.expiresAt = 0;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
