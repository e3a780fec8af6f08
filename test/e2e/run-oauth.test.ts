// `countersign run` with an OAuth 2.0 connection: a real `countersign serve`, a `run` process from
// the sources, the local Google-shaped OAuth server and the Gmail-shaped provider that takes only
// its live access tokens. The run renews the expired access token once, the audit says so, and no
// token shows in the run's output, the authority's log or the audit.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGmailServer, type GmailServer } from "../../examples/gmail-server/gmail-server.js";
import { refreshTokenPath, saveOAuthConnection } from "../../src/config/index.js";
import { accessTokenCachePath, cacheAccessToken } from "../../src/connector/access-tokens.js";
import { authorizeWithLoopback } from "../../src/connector/authorize-loopback.js";
import { openStore } from "../../src/store/index.js";
import { startServe, type ServeProcess } from "../authority/serve-process.js";
import { startOAuthServer, type OAuthServer } from "../../examples/gmail-server/oauth-server.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(ROOT, "src", "cli", "bin.ts");
const SCOPE = "https://www.googleapis.com/auth/gmail.compose";
const SLOW = 180_000;

let home: string;
let data: string;
let env: NodeJS.ProcessEnv;
let serve: ServeProcess;
let gmail: GmailServer;
let provider: OAuthServer;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "countersign-oauth-e2e-"));
  data = join(home, ".countersign");
  mkdirSync(data, { mode: 0o700 });
  provider = await startOAuthServer();
  gmail = await startGmailServer({ token: "no-static-token", accepts: (t) => provider.accepts(t) });
  writeFileSync(join(home, "client-secret"), `${provider.clientSecret}\n`, { mode: 0o600 });
  writeFileSync(join(data, "connections.toml"), `[email]\naddress = "me@example.com"\nbase_url = "${gmail.url}"\n`);
  const authorized = await authorizeWithLoopback({
    connection: "email",
    authUrl: provider.authUrl,
    tokenUrl: provider.tokenUrl,
    clientId: provider.clientId,
    clientSecret: provider.clientSecret,
    scopes: [SCOPE],
    timeoutMs: 30_000,
    onUrl: async (url) => void (await fetch(url)),
  });
  const oauth = {
    token_url: provider.tokenUrl,
    client_id: provider.clientId,
    client_secret_file: join(home, "client-secret"),
    refresh_token_file: refreshTokenPath(data, "email"),
    scopes: [SCOPE],
  };
  saveOAuthConnection(data, "email", oauth, authorized.refreshToken);
  // The token of the code exchange, as the host holds it an hour later: expired.
  cacheAccessToken(data, "email", {
    accessToken: authorized.accessToken,
    expiresAt: Date.now() - 1000,
    refreshToken: authorized.refreshToken,
  });
  provider.expireAccessTokens();
  env = { HOME: home, COUNTERSIGN_HOME: data, COUNTERSIGN_URL: "", COUNTERSIGN_TOKEN: "", COUNTERSIGN_DATABASE: "" };
  serve = await startServe(env);
}, SLOW);

afterAll(async () => {
  await serve?.stop();
  await gmail?.close();
  await provider?.close();
  rmSync(home, { recursive: true, force: true });
});

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", BIN, "run", ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}

describe("countersign run with an OAuth connection", () => {
  it(
    "renews the expired access token once, records it in the audit, and shows no token anywhere",
    async () => {
      const program = join(home, "remind-me.ts");
      writeFileSync(
        program,
        readFileSync(join(ROOT, "examples", "remind-me.ts"), "utf8").replaceAll("/home/user", home),
      );
      const sent = gmail.sent.length;
      const text = await run([program]);
      const json = await run([program, "--json"]);
      expect(text.code).toBe(0);
      expect(json.code).toBe(0);
      expect(gmail.sent.slice(sent).map((m) => m.to)).toEqual([["me@example.com"], ["me@example.com"]]);
      expect(provider.tokenRequests.filter((r) => r.startsWith("refresh_token"))).toEqual(["refresh_token ok"]); // the second run used the renewed token

      const store = await openStore({ dataDir: data });
      const audit: Record<string, unknown>[] = [];
      try {
        for await (const entry of store.exportAudit()) audit.push(entry);
      } finally {
        await store.close();
      }
      const refreshed = audit.filter((e) => e.type === "credential_refreshed");
      expect(refreshed).toHaveLength(1);
      expect(refreshed[0]).toMatchObject({ actor: "runner", request_id: null });
      expect(refreshed[0]!.details).toEqual({ connection: "email", reason: "expired", ok: true });

      const cached = JSON.parse(readFileSync(accessTokenCachePath(data, "email"), "utf8")).access_token as string;
      const secrets = [provider.clientSecret, ...provider.refreshTokens, cached];
      const shown = [
        text.stdout,
        text.stderr,
        json.stdout,
        json.stderr,
        serve.stderr(),
        JSON.stringify(audit),
        readFileSync(join(data, "connections.toml"), "utf8"),
      ].join("\n");
      for (const secret of secrets) expect(shown).not.toContain(secret);
      // Nor in any file of the data directory but the two that hold them.
      for (const file of readdirSync(data)) {
        if (file.endsWith(".toml") || file.endsWith(".json"))
          for (const secret of secrets) expect(readFileSync(join(data, file), "utf8")).not.toContain(secret);
      }
    },
    SLOW,
  );

  it(
    "a revoked grant stops the run with credential_error: Gmail sees no request",
    async () => {
      provider.revokeAll();
      provider.expireAccessTokens();
      writeFileSync(accessTokenCachePath(data, "email"), "{}"); // no usable cached token: the host must refresh first
      const program = join(home, "remind-me.ts");
      const requests = gmail.requests.length;
      const r = await run([program, "--json"]);
      expect(r.code).not.toBe(0);
      expect(r.stdout).toContain("credential_error");
      expect(r.stdout).toContain("countersign connect email");
      expect(gmail.requests.length).toBe(requests);
    },
    SLOW,
  );
});
