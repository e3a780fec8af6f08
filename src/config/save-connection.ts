import { existsSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "smol-toml";
import { CONNECTIONS_FILE, Connection, ConnectionsFile, type OAuthCredential } from "../connector/index.js";
import { CountersignError, makePrivateDir, parseToml } from "../model/index.js";
import { writeFileAtomic } from "../store/index.js";
import { readTextFile } from "./read-file.js";

/** Where `countersign connect NAME` keeps the refresh token of a connection: in the data directory, 0600. */
export function refreshTokenPath(dataDir: string, connection: string): string {
  return join(dataDir, "credentials", `${connection}.refresh-token`);
}

const HEADER = /^\s*\[\[?\s*([^\]]*?)\s*\]\]?\s*(#.*)?$/;

/** The text without the tables `[name]` and `[name.*]`; every other line (comments included) as it was. */
function withoutTables(text: string, name: string): string {
  let dropping = false;
  const kept: string[] = [];
  for (const line of text.split("\n")) {
    const header = HEADER.exec(line);
    if (header !== null) {
      const key = header[1]!.replaceAll('"', "");
      dropping = key === name || key.startsWith(`${name}.`);
    }
    if (!dropping) kept.push(line);
  }
  return kept.join("\n").replace(/\n+$/, "");
}

/**
 * Give connection `name` the OAuth credential `oauth` in `<dataDir>/connections.toml`: write the
 * refresh token to `oauth.refresh_token_file` (0600), then the connection's tables anew (its
 * other keys kept, token_file dropped, `set` over them, `defaults` where it has none) and every other
 * table and comment of the file as it was, written whole (0600). A file that does not parse, or
 * a result that would not load, is a config_error and nothing is written.
 */
export function saveOAuthConnection(
  dataDir: string,
  name: string,
  oauth: OAuthCredential,
  refreshToken: string,
  { defaults = {}, set = {} }: { defaults?: Partial<Connection>; set?: Partial<Connection> } = {},
): string {
  const file = join(dataDir, CONNECTIONS_FILE);
  const fail = (message: string): CountersignError =>
    new CountersignError("config_error", "connector", `${file}: ${message}`, { details: { file } });
  let text = "";
  if (existsSync(file)) {
    const read = readTextFile(file);
    if ("problem" in read) throw fail(read.problem);
    text = read.text;
  }
  const parsed = parseToml(text);
  if (parsed.problem !== undefined) throw fail(`${parsed.problem.message}: fix it before connecting`);
  const existing = (parsed.value[name] ?? {}) as Record<string, unknown>;
  const { token_file: _replaced, oauth: _old, ...kept } = existing;
  const connection = Connection.safeParse({ ...defaults, ...kept, ...set, oauth });
  if (!connection.success)
    throw fail(`${name}.${connection.error.issues[0]!.path.join(".")}: ${connection.error.issues[0]!.message}`);
  const updated = `${withoutTables(text, name)}${text.trim() === "" ? "" : "\n\n"}${stringify({ [name]: connection.data })}\n`;
  const check = parseToml(updated);
  const others = Object.keys(parsed.value).filter((k) => k !== name);
  if (
    check.problem !== undefined ||
    !ConnectionsFile.safeParse(check.value).success ||
    others.some((k) => !(k in check.value))
  ) {
    throw fail(
      `cannot rewrite the [${name}] table in place (is it written with dotted keys?): move it into a [${name}] table first`,
    );
  }
  makePrivateDir(join(dataDir, "credentials"));
  writeFileAtomic(oauth.refresh_token_file, `${refreshToken}\n`, 0o600);
  writeFileAtomic(file, updated, 0o600);
  return file;
}
