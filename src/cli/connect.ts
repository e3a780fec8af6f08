import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { dataDir } from "../config/data-dir.js";
import { refreshTokenPath, saveOAuthConnection } from "../config/index.js";
import {
  authorizeWithLoopback,
  cacheAccessToken,
  Connection,
  OAuthCredential,
  OAuthEndpointUrl,
  tokenLifetimeMs,
} from "../connector/index.js";
import { EXIT, reportError, usageError, type Command } from "./command.js";
import { openBrowser } from "./open-browser.js";
import { parseFlags, positiveFlag } from "./parse-flags.js";

/**
 * A provider's ready-made settings: its endpoints, the scopes the connector needs, the API's base URL, extra
 * authorization parameters.
 */
interface Provider {
  authUrl: string;
  tokenUrl: string;
  scopes: string[];
  baseUrl: string;
  authParams: Record<string, string>;
}

const PROVIDERS: Record<string, Provider> = {
  google: {
    authUrl: "https://accounts.google.com/o/oauth2/v2/auth",
    tokenUrl: "https://oauth2.googleapis.com/token",
    // compose: create, read and send drafts and send mail; readonly: read the mailbox.
    scopes: ["https://www.googleapis.com/auth/gmail.compose", "https://www.googleapis.com/auth/gmail.readonly"],
    baseUrl: "https://gmail.googleapis.com",
    // A refresh token is given only for offline access, and again on a second connect only with consent asked anew.
    authParams: { access_type: "offline", prompt: "consent" },
  },
};

const DEFAULT_WAIT_SECONDS = 300;

const usage = `usage: countersign connect NAME --provider google --client-id ID --client-secret-file FILE
       countersign connect NAME --auth-url URL --token-url URL --scope SCOPE... --client-id ID --client-secret-file FILE
           [--base-url URL] [--timeout SECONDS] [--no-open] [--json]

Connect connection NAME of connections.toml to an account with OAuth 2.0: print the provider's
authorization URL (and open it in a browser when this machine has one; not with --no-open),
wait up to --timeout seconds (default ${DEFAULT_WAIT_SECONDS}) for the provider to redirect back to
this machine (127.0.0.1, a port picked now), exchange the code, and keep the refresh token in
$COUNTERSIGN_HOME/credentials (mode 0600). The [NAME] table of connections.toml gets an [NAME.oauth]
table in place of token_file; its other keys and the file's other tables stay as they are. From
then on the host renews the access tokens itself; no program, connector or log sees them.

--provider google   Google's endpoints, the Gmail scopes the email connector needs, and
                    base_url https://gmail.googleapis.com when the table has none
--client-id, --client-secret-file   the OAuth client (a desktop app client, for Google) and the
                    file holding its secret; the file stays where it is and is read at each renewal
--scope             repeat for each scope (with --auth-url and --token-url)`;

/** `countersign connect`: the authorization code flow with PKCE, for a connection's OAuth credential. */
const command: Command = {
  usage,
  async run(argv, io) {
    const { values, positionals } = parseFlags({
      args: argv,
      allowPositionals: true,
      options: {
        provider: { type: "string" },
        "auth-url": { type: "string" },
        "token-url": { type: "string" },
        scope: { type: "string", multiple: true },
        "client-id": { type: "string" },
        "client-secret-file": { type: "string" },
        "base-url": { type: "string" },
        timeout: { type: "string" },
        "no-open": { type: "boolean" },
        json: { type: "boolean" },
      },
    });
    const [name, extra] = positionals;
    if (name === undefined)
      throw usageError("missing NAME: connect NAME (the connection's table in connections.toml, e.g. email)");
    if (extra !== undefined) throw usageError(`unexpected argument "${extra}"`);
    if (!/^[a-z][a-z0-9_-]*$/.test(name))
      throw usageError(`NAME must be a connector's name (lowercase letters, digits, _ and -), not "${name}"`);
    const provider = providerOf(values);
    const clientId = values["client-id"];
    if (clientId === undefined || clientId === "") throw usageError("missing --client-id: the OAuth client's id");
    const secretFlag = values["client-secret-file"];
    if (secretFlag === undefined)
      throw usageError("missing --client-secret-file: a file holding the OAuth client's secret");
    const clientSecretFile = resolve(io.cwd, secretFlag);
    const clientSecret = readClientSecret(clientSecretFile);
    const baseUrl =
      values["base-url"] === undefined ? undefined : Connection.safeParse({ base_url: values["base-url"] });
    // before the person goes through the consent screen
    if (baseUrl?.success === false) throw usageError(`--base-url: ${baseUrl.error.issues[0]!.message}`);
    const waitSeconds = positiveFlag(values.timeout, "--timeout", 3600) ?? DEFAULT_WAIT_SECONDS;
    const data = dataDir(io.env);
    const json = values.json === true;

    const oauth = OAuthCredential.safeParse({
      token_url: provider.tokenUrl,
      client_id: clientId,
      client_secret_file: clientSecretFile,
      refresh_token_file: refreshTokenPath(data, name),
      scopes: provider.scopes,
    });
    if (!oauth.success)
      throw usageError(`${flagOf(String(oauth.error.issues[0]!.path[0]))}: ${oauth.error.issues[0]!.message}`);

    const authorized = await authorizeWithLoopback({
      connection: name,
      authUrl: provider.authUrl,
      tokenUrl: provider.tokenUrl,
      clientId,
      clientSecret,
      scopes: provider.scopes,
      authParams: provider.authParams,
      timeoutMs: waitSeconds * 1000,
      onUrl: async (url) => {
        const opened = !json && values["no-open"] !== true && (await openBrowser(url, io.env));
        if (json) io.stderr(`${url}\n`);
        else
          io.stdout(
            `${opened ? "Opened in your browser; else open" : "Open"} this URL to let countersign reach ${name}:\n\n  ${url}\n\n`,
          );
        io.stderr(`countersign connect: waiting up to ${waitSeconds} s for the provider to redirect back\n`);
      },
    }).catch((failed: unknown) => ({ failed })); // the provider's refusal is no usage error
    if (!("refreshToken" in authorized)) return reportError(authorized.failed, io, json, EXIT.failed);
    const given = values["base-url"] === undefined ? {} : { set: { base_url: values["base-url"] } };
    const preset = provider.baseUrl === "" ? {} : { defaults: { base_url: provider.baseUrl } };
    const file = saveOAuthConnection(data, name, oauth.data, authorized.refreshToken, { ...preset, ...given });
    cacheAccessToken(data, name, {
      accessToken: authorized.accessToken,
      expiresAt: Date.now() + tokenLifetimeMs(authorized.expiresIn),
      refreshToken: authorized.refreshToken,
    });
    if (json)
      io.stdout(
        JSON.stringify(
          {
            connection: name,
            connections_file: file,
            refresh_token_file: oauth.data.refresh_token_file,
            scopes: provider.scopes,
          },
          null,
          2,
        ) + "\n",
      );
    else
      io.stdout(
        `connected ${name}: [${name}.oauth] written to ${file}; the refresh token is in ${oauth.data.refresh_token_file}\n`,
      );
    return EXIT.ok;
  },
};

function providerOf(values: {
  provider?: string | undefined;
  "auth-url"?: string | undefined;
  "token-url"?: string | undefined;
  scope?: string[] | undefined;
}): Provider {
  if (values.provider !== undefined) {
    const known = PROVIDERS[values.provider];
    if (known === undefined)
      throw usageError(
        `unknown --provider "${values.provider}"; known: ${Object.keys(PROVIDERS).join(", ")} (else give --auth-url, --token-url and --scope)`,
      );
    const custom = (["auth-url", "token-url", "scope"] as const).find((flag) => values[flag] !== undefined);
    if (custom !== undefined) throw usageError(`--${custom} goes without --provider: the provider names its own`);
    return known;
  }
  const authUrl = values["auth-url"];
  const tokenUrl = values["token-url"];
  const scopes = values.scope ?? [];
  if (authUrl === undefined || tokenUrl === undefined || scopes.length === 0)
    throw usageError("give --provider google, or --auth-url, --token-url and at least one --scope");
  const auth = OAuthEndpointUrl.safeParse(authUrl);
  if (!auth.success) throw usageError(`--auth-url: ${auth.error.issues[0]!.message}`);
  return { authUrl, tokenUrl, scopes, baseUrl: "", authParams: {} };
}

function flagOf(key: string): string {
  return (
    (
      {
        token_url: "--token-url",
        client_id: "--client-id",
        client_secret_file: "--client-secret-file",
        scopes: "--scope",
      } as Record<string, string>
    )[key] ?? key
  );
}

function readClientSecret(file: string): string {
  let secret: string;
  try {
    secret = readFileSync(file, "utf8").trim();
  } catch {
    throw usageError(`--client-secret-file: cannot read ${file}`);
  }
  if (secret === "" || /[\r\n]/.test(secret))
    throw usageError(`--client-secret-file: ${file} must hold the secret on one line`);
  return secret;
}

export default command;
