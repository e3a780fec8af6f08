import { randomBytes } from "node:crypto";
import { accessSync, constants, existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
// a light entry: `check` reads the token file name from here
import { CountersignError } from "../model/errors-plain.js";
import { writeFileAtomic } from "./atomic-write.js";

/** The approver secret (mode 0600): login links are made from it, so whoever can read it may approve. */
export const APPROVER_SECRET_FILE = "approver.secret";
/** The first submitter token, for the agent on this machine (mode 0600). */
export const SUBMITTER_TOKEN_FILE = "submitter.token";

/**
 * Write `text` to `path` unless the file exists; true when this call made it. Atomic, so a reader never sees half a
 * file.
 */
export function writeNewFile(path: string, text: string, mode: number): boolean {
  // not even a temporary file beside it: a start on a directory it keeps writes nothing
  if (existsSync(path)) return false;
  try {
    writeFileAtomic(path, text, mode, { exclusive: true });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw new CountersignError("config_error", "store", `cannot write ${path}: ${(err as Error).message}`, {
      details: { file: path },
      cause: err,
    });
  }
}

/** Make the data directory's approver secret (256 random bits) unless it has one; true when made now. */
export function createApproverSecret(dataDir: string): boolean {
  return writeNewFile(join(dataDir, APPROVER_SECRET_FILE), randomBytes(32).toString("base64url") + "\n", 0o600);
}

/** The approver secret, or a config_error saying how to make one. */
export function readApproverSecret(dataDir: string): Buffer {
  const file = join(dataDir, APPROVER_SECRET_FILE);
  let text: string;
  try {
    text = readFileSync(file, "utf8").trim();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new CountersignError(
      "config_error",
      "store",
      `cannot read the approver secret ${file} (${code ?? (err as Error).message}): run \`countersign init\` to create it`,
      {
        details: { file },
      },
    );
  }
  const secret = Buffer.from(text, "base64url");
  if (secret.length < 32)
    throw new CountersignError(
      "config_error",
      "store",
      `${file} is not an approver secret (256 random bits, base64url)`,
      { details: { file } },
    );
  return secret;
}

/**
 * A config_error naming `dir` when it cannot be written (a read-only mount, or its mode), before
 * anything tries to: otherwise the first write fails with whatever its library says. A directory
 * not made yet is checked where it will be made.
 */
export function requireWritableDir(dir: string): void {
  try {
    accessSync(dir, constants.W_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" && dirname(dir) !== dir) return requireWritableDir(dirname(dir));
    if (code !== "EACCES" && code !== "EROFS" && code !== "EPERM") throw err;
    throw new CountersignError(
      "config_error",
      "store",
      `the data directory ${dir} is read-only (${code}): countersign writes its keys, store and authority.json there; make it writable or set COUNTERSIGN_HOME to another directory`,
      { details: { dir, reason: "read_only" } },
    );
  }
}
