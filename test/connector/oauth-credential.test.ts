import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startGmailServer, type GmailServer } from "../../examples/gmail-server/gmail-server.js";
import { connectorContext, loadConnections, refreshTokenPath, saveOAuthConnection } from "../../src/config/index.js";
import {
  accessTokenCachePath,
  cacheAccessToken,
  tokenLifetimeMs,
  type CredentialRefresh,
} from "../../src/connector/access-tokens.js";
import { authorizeWithLoopback } from "../../src/connector/authorize-loopback.js";
import type { ConnectorContext } from "../../src/connector/context.js";
import { fetchPreview } from "../../src/connector/fetch-preview.js";
import { createPluginPool } from "../../src/connector/plugin-pool.js";
import { startOAuthServer, type OAuthServer } from "../../examples/gmail-server/oauth-server.js";
import { runAction, shippedManifests, tempDir } from "./fixtures.js";

const set = shippedManifests();
const SCOPE = "https://www.googleapis.com/auth/gmail.compose";
const letter = { to: ["bob@example.com"], subject: "Report ready", body: "It is in /reports." };
const HOUR = 3600_000;

let clock = Date.parse("2026-01-05T09:00:00Z");
let provider: OAuthServer;
let gmail: GmailServer;
const pool = createPluginPool();
let dir: string;
let audit: CredentialRefresh[];
let ctx: ConnectorContext;
let secretFile: string;

/** A connection of the email connector to the Gmail-shaped server, connected through the loopback flow. */
async function connect(): Promise<void> {
  dir = tempDir("cs-oauth-");
  secretFile = join(dir, "client-secret");
  writeFileSync(secretFile, `${provider.clientSecret}\n`);
  writeFileSync(
    join(dir, "connections.toml"),
    `# mine\n[http]\nhosts = ["api.example.com:443"]\n\n[email]\nbase_url = "${gmail.url}"\ntoken_file = "/gone"\n`,
  );
  const authorized = await authorizeWithLoopback({
    connection: "email",
    authUrl: provider.authUrl,
    tokenUrl: provider.tokenUrl,
    clientId: provider.clientId,
    clientSecret: provider.clientSecret,
    scopes: [SCOPE],
    timeoutMs: 10_000,
    onUrl: async (url) => void (await fetch(url)), // the browser's part: the authorize endpoint redirects at once
  });
  const oauth = {
    token_url: provider.tokenUrl,
    client_id: provider.clientId,
    client_secret_file: secretFile,
    refresh_token_file: refreshTokenPath(dir, "email"),
    scopes: [SCOPE],
  };
  saveOAuthConnection(dir, "email", oauth, authorized.refreshToken);
  cacheAccessToken(dir, "email", {
    accessToken: authorized.accessToken,
    expiresAt: clock + tokenLifetimeMs(authorized.expiresIn),
    refreshToken: authorized.refreshToken,
  });
  audit = [];
  ctx = connectorContext(dir, { plugins: pool, now: () => new Date(clock), audit: async (r) => void audit.push(r) });
}

const refreshes = (): string[] => provider.tokenRequests.filter((r) => r.startsWith("refresh_token"));

/** Every text a token must not appear in, beside the tokens themselves. */
function secrets(): string[] {
  const cached = JSON.parse(readFileSync(accessTokenCachePath(dir, "email"), "utf8")).access_token as string;
  return [provider.clientSecret, ...provider.refreshTokens, cached];
}

beforeAll(async () => {
  provider = await startOAuthServer({ now: () => clock });
  gmail = await startGmailServer({ token: "no-static-token", accepts: (t) => provider.accepts(t) });
});
afterAll(async () => {
  await pool.close();
  await gmail.close();
  await provider.close();
});
beforeEach(connect);

describe("an OAuth 2.0 credential held by the host", () => {
  it("works across an access token's expiry: one refresh, recorded in the audit", async () => {
    await runAction(set, "email.send_email", letter, ctx);
    expect(refreshes()).toEqual([]); // the token of the code exchange is still good
    clock += HOUR;
    const before = provider.tokenRequests.length;
    await runAction(set, "email.send_email", letter, ctx);
    await runAction(set, "email.send_email", letter, ctx);
    expect(provider.tokenRequests.slice(before)).toEqual(["refresh_token ok"]);
    expect(audit).toEqual([{ connection: "email", reason: "expired", ok: true }]);
    expect(gmail.sent.slice(-3).map((m) => m.subject)).toEqual([letter.subject, letter.subject, letter.subject]);
  });

  it("renews a token a minute before it expires, not after", async () => {
    clock += tokenLifetimeMs(3599) - 61_000;
    await runAction(set, "email.send_email", letter, ctx);
    expect(audit).toEqual([]);
    clock += 2_000;
    await runAction(set, "email.send_email", letter, ctx);
    expect(audit).toEqual([{ connection: "email", reason: "expired", ok: true }]);
  });

  it("answers a 401 with exactly one refresh and one retry", async () => {
    provider.expireAccessTokens(); // the API refuses a token the host still holds as good
    const requests = gmail.requests.length;
    const sent = gmail.sent.length;
    const before = provider.tokenRequests.length;
    await runAction(set, "email.send_email", letter, ctx);
    expect(provider.tokenRequests.slice(before)).toEqual(["refresh_token ok"]);
    expect(gmail.requests.slice(requests)).toEqual([
      "POST /gmail/v1/users/me/messages/send",
      "POST /gmail/v1/users/me/messages/send",
    ]);
    expect(gmail.sent.length).toBe(sent + 1);
    expect(audit).toEqual([{ connection: "email", reason: "unauthorized", ok: true }]);
  });

  it("a second 401 after the refresh is the API's answer: no refresh loop", async () => {
    const accepts = provider.accepts;
    provider.accepts = () => false;
    try {
      const before = provider.tokenRequests.length;
      await expect(runAction(set, "email.send_email", letter, ctx)).rejects.toMatchObject({
        class: "external_api_error",
        details: { status: 401 },
      });
      expect(provider.tokenRequests.slice(before)).toEqual(["refresh_token ok"]);
    } finally {
      provider.accepts = accepts;
    }
  });

  it("stops at a revoked grant with a credential_error that says what to do, and Gmail sees no request", async () => {
    provider.revokeAll();
    clock += HOUR;
    const requests = gmail.requests.length;
    const sent = gmail.sent.length;
    const err = await runAction(set, "email.send_email", letter, ctx).catch((e: unknown) => e);
    expect(err).toMatchObject({
      class: "credential_error",
      boundary: "connector",
      details: { connection: "email", reason: "invalid_grant" },
    });
    expect((err as Error).message).toContain("run `countersign connect email` again");
    expect(gmail.requests.length).toBe(requests);
    expect(gmail.sent.length).toBe(sent);
    expect(audit).toEqual([{ connection: "email", reason: "expired", ok: false, error: "invalid_grant" }]);
  });

  it("a grant revoked while its token is cached: the API's 401, a refused refresh, no send", async () => {
    provider.revokeAll();
    const sent = gmail.sent.length;
    await expect(runAction(set, "email.send_email", letter, ctx)).rejects.toMatchObject({
      class: "credential_error",
      details: { reason: "invalid_grant" },
    });
    expect(gmail.sent.length).toBe(sent);
    expect(audit).toEqual([{ connection: "email", reason: "unauthorized", ok: false, error: "invalid_grant" }]);
  });

  it("names the client when the token endpoint refuses it", async () => {
    writeFileSync(secretFile, "GOCSPX-wrong\n");
    clock += HOUR;
    const err = await runAction(set, "email.send_email", letter, ctx).catch((e: unknown) => e);
    expect(err).toMatchObject({
      class: "credential_error",
      details: { connection: "email", reason: "invalid_client" },
    });
    expect((err as Error).message).toMatch(/check client_id and client_secret_file in \[email\.oauth\]/);
  });

  it("a missing refresh token file is a credential_error, and nothing is sent", async () => {
    writeFileSync(refreshTokenPath(dir, "email"), "");
    const requests = gmail.requests.length;
    await expect(runAction(set, "email.send_email", letter, ctx)).rejects.toMatchObject({
      class: "credential_error",
      message: expect.stringContaining("countersign connect email"),
    });
    expect(gmail.requests.length).toBe(requests);
  });

  it("an unreachable token endpoint is a credential_error too", async () => {
    const conn = loadConnections(dir).byConnector.email!;
    const toml = readFileSync(join(dir, "connections.toml"), "utf8").replace(
      conn.oauth!.token_url,
      "http://127.0.0.1:9/token",
    );
    writeFileSync(join(dir, "connections.toml"), toml);
    clock += HOUR;
    const local = connectorContext(dir, {
      plugins: pool,
      now: () => new Date(clock),
      audit: async (r) => void audit.push(r),
    });
    await expect(runAction(set, "email.send_email", letter, local)).rejects.toMatchObject({
      class: "credential_error",
      details: { reason: "unreachable" },
    });
    expect(audit).toEqual([{ connection: "email", reason: "expired", ok: false, error: "unreachable" }]);
  });

  it("keeps the access token cache 0600 in a 0700 folder of the data directory, bound to the refresh token", async () => {
    clock += HOUR;
    await runAction(set, "email.send_email", letter, ctx);
    const cache = accessTokenCachePath(dir, "email");
    expect(statSync(cache).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "credentials")).mode & 0o777).toBe(0o700);
    expect(statSync(refreshTokenPath(dir, "email")).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(dir, "credentials")).sort()).toEqual(["email.access-token.json", "email.refresh-token"]); // no temp file left
    // A new refresh token (a second connect) makes the cached access token stale.
    writeFileSync(refreshTokenPath(dir, "email"), `${provider.refreshTokens.at(-1)}x\n`);
    await expect(runAction(set, "email.send_email", letter, ctx)).rejects.toMatchObject({
      class: "credential_error",
      details: { reason: "invalid_grant" },
    });
  });

  it("shows no token or secret in results, errors or the audit", async () => {
    const texts: string[] = [];
    texts.push(JSON.stringify(await runAction(set, "email.send_email", letter, ctx)));
    texts.push(JSON.stringify(await runAction(set, "email.draft_email", letter, ctx)));
    clock += HOUR;
    texts.push(JSON.stringify(await runAction(set, "email.send_email", letter, ctx)));
    provider.revokeAll();
    provider.expireAccessTokens();
    const err = (await runAction(set, "email.send_email", letter, ctx).then(
      () => new Error("sent"),
      (e: unknown) => e,
    )) as Error & { details?: unknown };
    expect(err).toMatchObject({ class: "credential_error" });
    texts.push(
      err.message,
      JSON.stringify(err.details),
      JSON.stringify(audit),
      readFileSync(join(dir, "connections.toml"), "utf8"),
    );
    const all = texts.join("\n");
    for (const secret of secrets()) expect(all).not.toContain(secret);
    expect(secrets().length).toBeGreaterThanOrEqual(3);
  });

  it("fetches a preview with a renewed token, and a refused renewal shows as an unavailable preview without a token", async () => {
    const draft = (await runAction(set, "email.draft_email", letter, ctx)) as { id: string };
    clock += HOUR;
    const preview = await fetchPreview(set, "email.send_draft", { draft_id: draft.id }, ctx, () => null);
    expect(preview).toMatchObject({
      ok: true,
      fields: [
        { label: "To", value: "bob@example.com" },
        { label: "Subject", value: letter.subject },
        { label: "Body" },
      ],
    });
    expect(audit).toEqual([{ connection: "email", reason: "expired", ok: true }]);
    provider.revokeAll();
    clock += HOUR;
    const refused = await fetchPreview(set, "email.send_draft", { draft_id: draft.id }, ctx, () => null);
    expect(refused.ok).toBe(false);
    const shown = JSON.stringify([preview, refused]);
    expect(shown).toContain("countersign connect email");
    for (const secret of secrets()) expect(shown).not.toContain(secret);
  });
});

describe("the [oauth] table of connections.toml", () => {
  const oauthTable = (lines: string) => `[email]\nbase_url = "http://127.0.0.1:1"\n[email.oauth]\n${lines}`;
  const full = `token_url = "https://oauth2.googleapis.com/token"\nclient_id = "c"\nclient_secret_file = "/s"\nrefresh_token_file = "/r"\nscopes = ["${SCOPE}"]\n`;
  const load = (toml: string) => {
    const home = tempDir("cs-oauth-conf-");
    writeFileSync(join(home, "connections.toml"), toml);
    return () => loadConnections(home);
  };

  it("loads a complete table", () => {
    expect(load(oauthTable(full))().byConnector.email?.oauth).toMatchObject({ client_id: "c", scopes: [SCOPE] });
  });

  it("refuses token_file and [oauth] at once, naming the key", () => {
    const both = `[email]\nbase_url = "http://127.0.0.1:1"\ntoken_file = "/t"\n[email.oauth]\n${full}`;
    expect(load(both)).toThrow(
      expect.objectContaining({
        class: "config_error",
        details: expect.objectContaining({ key: "email.oauth" }),
        message: expect.stringContaining("not both"),
      }),
    );
  });

  const broken: [string, string, string][] = [
    [
      "a token endpoint in clear text off this machine",
      full.replace("https://oauth2.googleapis.com", "http://oauth2.googleapis.com"),
      "email.oauth.token_url",
    ],
    ["a relative secret file", full.replace('"/s"', '"s"'), "email.oauth.client_secret_file"],
    ["no scope", full.replace(`["${SCOPE}"]`, "[]"), "email.oauth.scopes"],
    ["a scope with a space", full.replace(SCOPE, "a b"), "email.oauth.scopes.0"],
    ["a missing client id", full.replace('client_id = "c"\n', ""), "email.oauth.client_id"],
    ["an unknown key", `${full}client_secret = "inline"\n`, "email.oauth"],
  ];
  for (const [what, lines, key] of broken) {
    it(`refuses ${what}`, () => {
      expect(load(oauthTable(lines))).toThrow(
        expect.objectContaining({ class: "config_error", details: expect.objectContaining({ key }) }),
      );
    });
  }

  it("keeps the secret and refresh token files out of every fs root", () => {
    const home = tempDir("cs-oauth-roots-");
    const secretsDir = tempDir("cs-oauth-secrets-");
    const toml = `[fs]\nroots = ["${secretsDir}"]\n\n${oauthTable(full.replace('"/s"', `"${join(secretsDir, "s")}"`))}`;
    writeFileSync(join(home, "connections.toml"), toml);
    expect(() => loadConnections(home)).toThrow(
      expect.objectContaining({
        class: "config_error",
        message: expect.stringContaining("email.oauth.client_secret_file"),
      }),
    );
  });
});
