import { readFileSync, realpathSync } from "node:fs";
import type { LoadedConnector } from "../manifest/index.js";
import { CountersignError } from "../model/index.js";
import type { Connection, Connections, Secret } from "./connections.js";
import { accessTokens, type CredentialHost } from "./access-tokens.js";
import { formatTarget, urlTarget } from "../model/index.js";
import { isPathUnder, normalizePath } from "../constraint/index.js";

/**
 * What one connector may do in this call: the manifest's declared capabilities narrowed by the
 * user's connection. Host functions consult nothing else.
 */
export interface Capabilities {
  connector: string;
  hosts: ReadonlySet<string>; // "host:port"
  baseUrl: URL | null; // relative requests resolve here; the credential goes only to its host
  credential: InjectedCredential | null;
  roots: readonly FsRoot[];
  secrets: readonly Secret[]; // refused by the fs host whatever the roots say
}

/**
 * The header the host adds to requests to the base_url's host. `value` is asked before each
 * request (an OAuth access token may have been renewed since); `renew`, when the credential can
 * be renewed, gives a new value after the API answered 401.
 */
export interface InjectedCredential {
  header: string;
  value: () => Promise<string>;
  renew: (() => Promise<string>) | null;
}

/**
 * An fs root as connections.toml names it (normalized) and its real path, resolved once here: a
 * link in the root's own path is the user's, one below it is refused by the fs host.
 */
export interface FsRoot {
  given: string;
  real: string;
}

function configError(connections: Connections, key: string, message: string): CountersignError {
  return new CountersignError("config_error", "connector", `${connections.file}: ${key}: ${message}`, {
    details: { file: connections.file, key },
  });
}

function readToken(connections: Connections, key: string, tokenFile: string): string {
  let token: string;
  try {
    token = readFileSync(tokenFile, "utf8").trim();
  } catch {
    throw configError(connections, key, `cannot read the token file ${tokenFile}`);
  }
  if (token === "") throw configError(connections, key, `the token file ${tokenFile} is empty`);
  if (/[\r\n]/.test(token)) throw configError(connections, key, `the token file ${tokenFile} holds more than one line`);
  return token;
}

function realRoots(connections: Connections, key: string, roots: string[], declared: string[]): FsRoot[] {
  return roots.map((root) => {
    let real: string;
    try {
      real = realpathSync.native(root); // one system call, where the JavaScript one makes an lstat per path segment
    } catch {
      throw configError(connections, key, `root ${root} does not exist`);
    }
    if (declared.length > 0 && !declared.some((d) => isPathUnder(real, d))) {
      throw configError(connections, key, `root ${root} is outside the connector's declared roots`);
    }
    // Checked at load too; again here, for a root made a link to a secret since.
    const secret = connections.secrets.find((s) => isPathUnder(s.path, real) || isPathUnder(real, s.path));
    if (secret !== undefined)
      throw configError(connections, key, `root ${root} (${real}) overlaps ${secret.what} ${secret.path}`);
    return { given: normalizePath(root) ?? real, real };
  });
}

function allowedHosts(connections: Connections, name: string, conn: Connection, declared: string[]): Set<string> {
  // validated http(s) with a host
  if (conn.base_url !== undefined) return new Set([formatTarget(urlTarget(new URL(conn.base_url))!)]);
  if (conn.hosts === undefined) {
    if (declared.length > 0) return new Set(declared);
    throw configError(
      connections,
      `${name}.hosts`,
      `missing: list the hosts this connector may call, e.g. hosts = ["api.example.com:443"]`,
    );
  }
  const hosts = conn.hosts.map((h) => h.toLowerCase());
  const allowed = declared.length > 0 ? hosts.filter((h) => declared.includes(h)) : hosts;
  if (allowed.length === 0)
    throw configError(connections, `${name}.hosts`, "none of these hosts is allowed by the connector manifest");
  return new Set(allowed);
}

function injectedCredential(
  connections: Connections,
  name: string,
  conn: Connection,
  connector: LoadedConnector,
  host: CredentialHost | undefined,
): InjectedCredential {
  const caps = connector.manifest.capabilities;
  const header = caps.credential?.header ?? "Authorization";
  const format = caps.credential?.format ?? "{token}";
  const formatted = (token: string): string => format.replace("{token}", token);
  if (conn.oauth !== undefined) {
    if (host === undefined)
      throw configError(
        connections,
        `${name}.oauth`,
        "an OAuth credential needs the data directory to cache its access tokens",
      );
    const tokens = accessTokens(name, conn.oauth, host);
    return {
      header,
      value: async () => formatted(await tokens.current()),
      renew: async () => formatted(await tokens.renew()),
    };
  }
  if (conn.token_file === undefined) {
    throw configError(
      connections,
      `${name}.token_file`,
      `missing: the path of a file holding the token, or an [${name}.oauth] table (see \`countersign connect ${name}\`)`,
    );
  }
  const value = formatted(readToken(connections, `${name}.token_file`, conn.token_file));
  return { header, value: async () => value, renew: null };
}

/**
 * Resolve a connector's capabilities for one action; every missing piece is a config_error naming
 * file and key. `host` holds OAuth credentials (their cached access tokens, the clock, the audit).
 */
export function resolveCapabilities(
  connector: LoadedConnector,
  connections: Connections,
  host?: CredentialHost,
): Capabilities {
  const { name } = connector;
  const caps = connector.manifest.capabilities;
  const credentialKind = caps.credential?.kind ?? "none";
  const needsConnection = caps.network !== undefined || caps.fs !== undefined || credentialKind !== "none";
  const conn = connections.byConnector[name];
  if (conn === undefined) {
    if (needsConnection) throw configError(connections, name, `missing: add a [${name}] table`);
    return {
      connector: name,
      hosts: new Set(),
      baseUrl: null,
      credential: null,
      roots: [],
      secrets: connections.secrets,
    };
  }

  let credential: Capabilities["credential"] = null;
  if (credentialKind !== "none") {
    if (conn.base_url === undefined)
      throw configError(
        connections,
        `${name}.base_url`,
        "missing: the API's base URL, e.g. https://gmail.googleapis.com",
      );
    credential = injectedCredential(connections, name, conn, connector, host);
  }

  const hosts =
    caps.network !== undefined ? allowedHosts(connections, name, conn, caps.network.hosts) : new Set<string>();
  let roots: FsRoot[] = [];
  if (caps.fs !== undefined) {
    if (conn.roots === undefined || conn.roots.length === 0) {
      throw configError(
        connections,
        `${name}.roots`,
        `missing: list the directories this connector may use, e.g. roots = ["/home/me/Sandbox"]`,
      );
    }
    roots = realRoots(connections, `${name}.roots`, conn.roots, caps.fs.roots);
  }
  const baseUrl = conn.base_url !== undefined && caps.network !== undefined ? new URL(conn.base_url) : null;
  return { connector: name, hosts, baseUrl, credential, roots, secrets: connections.secrets };
}
