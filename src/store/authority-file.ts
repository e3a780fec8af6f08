import { existsSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { CountersignError } from "../model/index.js";
import { AuthorityFile, Jwks, LOCAL_ISSUER } from "../model/index.js";
import { describeIssues } from "../receipt/index.js";
import { writeFileAtomic } from "./atomic-write.js";
import { jwksPath } from "./jwks-file.js";

export function authorityPath(home: string): string {
  return join(home, "authority.json");
}

/**
 * Create authority.json for the local keyring, or point an existing one at it, keeping its issuer
 * (and its URL unless `url` gives the one a starting authority now serves at).
 */
export function writeLocalAuthority(home: string, options: { url?: string } = {}): AuthorityFile {
  const file = authorityPath(home);
  const current = existsSync(file) ? readAuthorityFile(file) : undefined;
  const url = options.url ?? current?.url;
  const next: AuthorityFile = {
    issuer: current?.issuer ?? LOCAL_ISSUER,
    jwks_path: relative(home, jwksPath(home)),
    ...(url === undefined ? {} : { url }),
  };
  const text = JSON.stringify(next, null, 2) + "\n";
  if (!existsSync(file) || readFileSync(file, "utf8") !== text) writeFileAtomic(file, text, 0o644);
  return next;
}

/** Whom a runner on this machine trusts: the issuer and its JWKS, from authority.json. */
export function loadLocalAuthority(home: string): { issuer: string; jwks: Jwks } {
  const file = authorityPath(home);
  if (!existsSync(file)) {
    throw new CountersignError(
      "config_error",
      "receipt",
      `no ${file}: run \`countersign keys list\` to create the local authority, or pass --jwks and --issuer`,
      { details: { file } },
    );
  }
  const authority = readAuthorityFile(file);
  if (authority.jwks !== undefined) return { issuer: authority.issuer, jwks: authority.jwks };
  const path = resolve(home, authority.jwks_path!);
  return { issuer: authority.issuer, jwks: parseFile(path, Jwks, "JWKS") };
}

function readAuthorityFile(file: string): AuthorityFile {
  return parseFile(file, AuthorityFile, "authority file");
}

function parseFile<T>(file: string, schema: { parse(v: unknown): T }, what: string): T {
  try {
    return schema.parse(JSON.parse(readFileSync(file, "utf8")));
  } catch (err) {
    throw new CountersignError("config_error", "receipt", `${file} is not a valid ${what}: ${describeIssues(err)}`, {
      details: { file },
    });
  }
}
