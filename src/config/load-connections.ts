import { realpathSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
// Not the connector index: it loads the Extism host, which reading a file does not need.
import {
  CONNECTIONS_FILE,
  ConnectionsFile,
  type Connection,
  type Connections,
  type Secret,
} from "../connector/index.js";
import { isPathUnder, normalizePath } from "../constraint/index.js";
import { CountersignError, packageRoot } from "../model/index.js";
import { parseToml } from "../model/index.js";
import { lineOf } from "../model/index.js";
import { readTextFile } from "./read-file.js";

/**
 * Read `<dataDir>/connections.toml`; a missing or malformed file is a config_error naming the file,
 * the key and its line. So is an fs root that contains, equals or lies inside one of countersign's
 * own secrets (see secretsOf, plus `options.secrets`, e.g. a SQLite store kept elsewhere): a
 * program given that root could read them.
 */
export function loadConnections(dataDir: string, options: { secrets?: readonly Secret[] } = {}): Connections {
  const file = join(dataDir, CONNECTIONS_FILE);
  const fail = (message: string, where: { key?: string; line?: number } = {}): CountersignError => {
    const at = where.line === undefined ? file : `${file}:${where.line}`;
    return new CountersignError(
      "config_error",
      "connector",
      `${at}: ${where.key === undefined ? "" : `${where.key}: `}${message}`,
      {
        details: { file, ...where },
      },
    );
  };
  const read = readTextFile(file);
  if ("problem" in read) throw fail(`${read.problem}: create it with one [<connector>] table per connection`);
  const parsed = parseToml(read.text);
  if (parsed.problem !== undefined)
    throw fail(parsed.problem.message, parsed.problem.line === undefined ? {} : { line: parsed.problem.line });
  const result = ConnectionsFile.safeParse(parsed.value);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const path = issue.path.map((p) => (typeof p === "number" ? p : String(p)));
    const line = lineOf(parsed.lines, path);
    throw fail(issue.message, { key: path.join("."), ...(line === undefined ? {} : { line }) });
  }
  const secrets = [
    ...secretsOf(dataDir, result.data),
    ...(options.secrets ?? []).map((s) => ({ path: realOrResolved(s.path), what: s.what })),
  ];
  for (const [name, conn] of Object.entries(result.data)) {
    for (const [i, root] of (conn.roots ?? []).entries()) {
      const line = lineOf(parsed.lines, [name, "roots", i]);
      const where = { key: `${name}.roots`, ...(line === undefined ? {} : { line }) };
      const problem = rootProblem(root, secrets);
      if (problem !== undefined) throw fail(problem, where);
    }
  }
  return { file, byConnector: result.data, secrets };
}

/**
 * What no program may read or write, whatever the roots say, each by its real path: the data
 * directory (signing keys, approver secret, submitter tokens, the store, policies, this file,
 * authority.json), every connection's token file and OAuth client secret and refresh token
 * files, and on Linux /proc (the runner's environment,
 * which may hold COUNTERSIGN_TOKEN, and its memory, which holds every credential), and
 * countersign's own installation.
 */
function secretsOf(dataDir: string, byConnector: Record<string, Connection>): Secret[] {
  const secrets: Secret[] = [
    {
      path: realOrResolved(dataDir),
      what: "the data directory (signing keys, approver secret, submitter tokens, the store)",
    },
  ];
  for (const [name, conn] of Object.entries(byConnector)) {
    if (conn.token_file !== undefined)
      secrets.push({ path: realOrResolved(conn.token_file), what: `the token file of ${name}.token_file` });
    if (conn.oauth !== undefined) {
      secrets.push({
        path: realOrResolved(conn.oauth.client_secret_file),
        what: `the token file of ${name}.oauth.client_secret_file`,
      });
      secrets.push({
        path: realOrResolved(conn.oauth.refresh_token_file),
        what: `the token file of ${name}.oauth.refresh_token_file`,
      });
    }
  }
  if (process.platform === "linux")
    secrets.push({ path: "/proc", what: "the process files (/proc: the runner's environment and memory)" });
  // Not secret but trusted: a program that wrote countersign's code, shipped policy or manifests
  // would change the next run's checks. An installed package's dependencies sit beside it.
  const installed = realOrResolved(packageRoot);
  const code = basename(dirname(installed)) === "node_modules" ? dirname(installed) : installed;
  secrets.push({ path: code, what: "countersign's own installation (its code, shipped policies and manifests)" });
  return secrets;
}

/** The real path when the file exists (links resolved, as the fs host resolves them), else the lexical one. */
function realOrResolved(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return resolve(path);
  }
}

function rootProblem(root: string, secrets: readonly Secret[]): string | undefined {
  // A `..` after a link in the root's path goes somewhere else than it reads: the fs host compares
  // program paths with the root as written, so it must mean what it says.
  if (root.split("/").includes("..")) return `root ${root} must not contain \`..\`: name the folder itself`;
  const real = realOrResolved(root);
  const lexical = normalizePath(root) ?? real;
  for (const secret of secrets) {
    const contains = isPathUnder(secret.path, real) || isPathUnder(secret.path, lexical);
    const inside = isPathUnder(real, secret.path) || isPathUnder(lexical, secret.path);
    if (!contains && !inside) continue;
    const shown = real === lexical ? root : `${root} (${real})`;
    const relation = !contains ? "lies inside" : inside ? "is" : "contains";
    const fix = secret.what.startsWith("the data directory")
      ? "name folders that leave it out, or move the data directory with COUNTERSIGN_HOME"
      : secret.what.startsWith("the token file")
        ? "name folders that leave it out, or move the token file out of the root"
        : "name folders that leave it out";
    return `root ${shown} ${relation} ${secret.what} ${secret.path}: a program could read countersign's own secrets through it; ${fix}`;
  }
  return undefined;
}
