import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGmailServer, type GmailServer } from "../../examples/gmail-server/gmail-server.js";
import type { Io } from "../../src/cli/command.js";
import { main } from "../../src/cli/main.js";
import { connectorContext } from "../../src/config/index.js";
import { callWithReceipt } from "../../src/connector/call-with-receipt.js";
import { createPluginPool } from "../../src/connector/plugin-pool.js";
import { parseToml } from "../../src/model/parse-toml.js";
import { anyReceipt, shippedManifests } from "../connector/fixtures.js";
import { isolatedEnv } from "../support/isolated-env.js";
import { startOAuthServer, type OAuthServer } from "../../examples/gmail-server/oauth-server.js";

const SCOPE = "https://www.googleapis.com/auth/gmail.compose";
let provider: OAuthServer;
let gmail: GmailServer;

beforeAll(async () => {
  provider = await startOAuthServer();
  gmail = await startGmailServer({ token: "no-static-token", accepts: (t) => provider.accepts(t) });
});
afterAll(async () => {
  await gmail.close();
  await provider.close();
});

interface Run {
  code: Promise<number>;
  out: () => string;
  err: () => string;
  url: Promise<URL>; // the authorization URL once printed
  home: string;
}

/** `countersign connect` in process, its output collected; `url` resolves once it printed the authorization URL. */
function connect(args: string[], env = isolatedEnv()): Run {
  const out: string[] = [];
  const err: string[] = [];
  let printed: (url: URL) => void = () => undefined;
  let ended: (reason: Error) => void = () => undefined;
  const url = new Promise<URL>((resolve, reject) => ((printed = resolve), (ended = reject)));
  const seen = (): void => {
    const found = /https?:\/\/\S+\/o\/oauth2\/v2\/auth\?\S+/.exec(out.join("") + err.join(""));
    if (found !== null) printed(new URL(found[0]));
  };
  const io: Io = {
    stdout: (t) => void (out.push(t), seen()),
    stderr: (t) => void (err.push(t), seen()),
    readStdin: async () => "",
    env,
    cwd: env.COUNTERSIGN_HOME!,
  };
  const code = main(["connect", ...args], io);
  url.catch(() => undefined); // a run that fails before printing one is asserted on its code
  void code.then((c) => ended(new Error(`connect ended (${c}) before printing a URL: ${err.join("")}`)));
  return { code, out: () => out.join(""), err: () => err.join(""), url, home: env.COUNTERSIGN_HOME! };
}

function clientArgs(home: string, secret = provider.clientSecret): string[] {
  writeFileSync(join(home, "client-secret.txt"), `${secret}\n`);
  return [
    "email",
    "--auth-url",
    provider.authUrl,
    "--token-url",
    provider.tokenUrl,
    "--scope",
    SCOPE,
    "--client-id",
    provider.clientId,
    "--client-secret-file",
    "client-secret.txt",
    "--no-open",
  ];
}

describe("countersign connect", () => {
  it("runs the code flow headlessly and writes the refresh token and the [email.oauth] table, keeping the rest", async () => {
    const env = isolatedEnv();
    const home = env.COUNTERSIGN_HOME!;
    const before = `# my connections\n[http]\nhosts = ["api.example.com:443"] # the team's API\n\n[email]\nbase_url = "${gmail.url}"\ntoken_file = "/old/token"\naddress = "me@example.com"\n\n[fs]\nroots = ["/srv/shared"]\n`;
    writeFileSync(join(home, "connections.toml"), before);
    const run = connect(clientArgs(home), env);
    const url = await run.url;
    // PKCE and state, as RFC 8252 asks; the redirect goes to this machine.
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("state")).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(url.searchParams.get("redirect_uri")).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const page = await fetch(url); // the browser's part: the authorize endpoint redirects at once
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("You may close this tab");
    expect(await run.code).toBe(0);
    expect(provider.tokenRequests.at(-1)).toBe("authorization_code ok");

    const refreshFile = join(home, "credentials", "email.refresh-token");
    expect(readFileSync(refreshFile, "utf8")).toBe(`${provider.refreshTokens.at(-1)}\n`);
    expect(statSync(refreshFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, "credentials", "email.access-token.json")).mode & 0o777).toBe(0o600);
    const text = readFileSync(join(home, "connections.toml"), "utf8");
    expect(statSync(join(home, "connections.toml")).mode & 0o777).toBe(0o600);
    expect(text).toContain(`# my connections\n[http]\nhosts = ["api.example.com:443"] # the team's API\n`);
    const parsed = (parseToml(text) as { value: Record<string, Record<string, unknown>> }).value;
    expect(parsed.fs).toEqual({ roots: ["/srv/shared"] });
    expect(parsed.email).toEqual({
      base_url: gmail.url,
      address: "me@example.com",
      oauth: {
        token_url: provider.tokenUrl,
        client_id: provider.clientId,
        client_secret_file: join(home, "client-secret.txt"),
        refresh_token_file: refreshFile,
        scopes: [SCOPE],
      },
    });
    for (const secret of [provider.clientSecret, ...provider.refreshTokens]) {
      expect(text + run.out() + run.err()).not.toContain(secret);
    }

    // The connection works as written.
    const set = shippedManifests();
    const pool = createPluginPool();
    try {
      const sent = gmail.sent.length;
      await callWithReceipt(
        anyReceipt(set),
        set,
        "email.send_email",
        { to: ["bob@example.com"], subject: "hi", body: "b" },
        connectorContext(home, { plugins: pool }),
      );
      expect(gmail.sent.length).toBe(sent + 1);
    } finally {
      await pool.close();
    }
  });

  it("makes connections.toml when there is none, and a second connect replaces the grant", async () => {
    const env = isolatedEnv();
    const home = env.COUNTERSIGN_HOME!;
    for (let i = 0; i < 2; i++) {
      const run = connect([...clientArgs(home), "--base-url", gmail.url, "--json"], env);
      await fetch(await run.url);
      expect(await run.code).toBe(0);
      expect(JSON.parse(run.out())).toMatchObject({
        connection: "email",
        refresh_token_file: join(home, "credentials", "email.refresh-token"),
        scopes: [SCOPE],
      });
    }
    const text = readFileSync(join(home, "connections.toml"), "utf8");
    expect(text.match(/^\[email\]$/gm)).toHaveLength(1);
    expect(text).toContain(`base_url = "${gmail.url}"`);
    expect(text.match(/^\[email\.oauth\]$/gm)).toHaveLength(1);
    expect(readFileSync(join(home, "credentials", "email.refresh-token"), "utf8")).toBe(
      `${provider.refreshTokens.at(-1)}\n`,
    );
  });

  it("refuses a redirect with another state, and writes nothing", async () => {
    const env = isolatedEnv();
    const home = env.COUNTERSIGN_HOME!;
    const run = connect([...clientArgs(home), "--base-url", gmail.url], env);
    const url = await run.url;
    const back = new URL(url.searchParams.get("redirect_uri")!);
    back.searchParams.set("code", "4/forged");
    back.searchParams.set("state", "not-the-state");
    expect((await fetch(back)).status).toBe(400);
    expect(await run.code).toBe(6);
    expect(run.err()).toMatch(/credential_error: email: the redirect did not answer this authorization/);
    expect(() => readFileSync(join(home, "connections.toml"))).toThrow();
  });

  it("reports the provider's refusal and a wrong client secret as credential_error", async () => {
    const env = isolatedEnv();
    const home = env.COUNTERSIGN_HOME!;
    const denied = connect([...clientArgs(home), "--base-url", gmail.url], env);
    const url = await denied.url;
    const back = new URL(url.searchParams.get("redirect_uri")!);
    back.searchParams.set("error", "access_denied");
    back.searchParams.set("state", url.searchParams.get("state")!);
    await fetch(back);
    expect(await denied.code).toBe(6);
    expect(denied.err()).toContain("the provider refused the authorization (access_denied)");

    const wrong = connect([...clientArgs(home, "GOCSPX-wrong"), "--base-url", gmail.url], env);
    await fetch(await wrong.url);
    expect(await wrong.code).toBe(6);
    expect(wrong.err()).toContain("(invalid_client): check --client-id and --client-secret-file");
  });

  it("gives up after --timeout without a redirect", async () => {
    const env = isolatedEnv();
    const run = connect([...clientArgs(env.COUNTERSIGN_HOME!), "--timeout", "1"], env);
    await run.url;
    expect(await run.code).toBe(6);
    expect(run.err()).toContain("no redirect came back within 1 s");
  });

  const usage: [string, string[], RegExp][] = [
    ["no NAME", [], /missing NAME/],
    ["a NAME that is no connector's", ["Email!"], /NAME must be/],
    [
      "an unknown provider",
      ["email", "--provider", "yahoo", "--client-id", "c", "--client-secret-file", "/s"],
      /unknown --provider "yahoo"/,
    ],
    [
      "a provider with its own endpoints",
      ["email", "--provider", "google", "--token-url", "https://x/t"],
      /--token-url goes without --provider/,
    ],
    ["no endpoints", ["email", "--client-id", "c"], /give --provider google, or --auth-url/],
    ["no client id", ["email", "--provider", "google"], /missing --client-id/],
    [
      "a base URL that is not http(s)",
      [
        "email",
        "--provider",
        "google",
        "--client-id",
        "c",
        "--client-secret-file",
        "/etc/hostname",
        "--base-url",
        "ftp://x",
      ],
      /--base-url: must be an http:\/\/ or https:\/\/ URL/,
    ],
    [
      "an unreadable secret file",
      ["email", "--provider", "google", "--client-id", "c", "--client-secret-file", "/no/such"],
      /cannot read \/no\/such/,
    ],
    [
      "a clear-text token endpoint off this machine",
      [
        "email",
        "--auth-url",
        "https://a/auth",
        "--token-url",
        "http://example.com/t",
        "--scope",
        "s",
        "--client-id",
        "c",
        "--client-secret-file",
        "/etc/hostname",
      ],
      /--token-url: must be an https:\/\/ URL/,
    ],
  ];
  for (const [what, args, message] of usage) {
    it(`refuses ${what} as a usage error`, async () => {
      const run = connect(args);
      expect(await run.code).toBe(2);
      expect(run.err()).toMatch(message);
    });
  }
});
