import { createHash } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  type Stats,
} from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { Script } from "node:vm";
// a light entry: installed by every command, before anything else loads
import { makePrivateDir } from "../../model/paths.js";

/**
 * A V8 code cache for big CommonJS bundles (the TypeScript compiler, otherwise compiled from
 * source on every cold `check`). The cache only saves time: V8 takes compiled code from it, so it
 * is read only from a directory and a file that the current user owns and nobody else can write,
 * under a name keyed by the bundle's sha256 and the exact Node build, and its own checksum must
 * match. Anything else (missing, foreign, corrupt, rejected by V8) compiles from source and the
 * cache is written anew when the process exits.
 */
let cacheDir: string | undefined;

const WRAP = ["(function (exports, require, module, __filename, __dirname) {", "\n})"] as const;
const CHECKSUM_BYTES = 32; // a cache file is sha256(payload) then the payload

/** Keep code caches in `dir` (made mode 0700 with its parent on first use); without it `requireCached` is `require`. */
export function useCodeCache(dir: string): void {
  cacheDir = dir;
}

/** `require(file)` for a self-contained CommonJS file, through the code cache when one is in use. */
export function requireCached(file: string): unknown {
  if (cacheDir === undefined) return createRequire(file)(file);
  const loaded = runCached(file, cacheDir);
  // Written at exit so that it also holds the functions compiled while the process ran.
  if (!loaded.fromCache) process.once("exit", loaded.save);
  return loaded.exports;
}

export interface CachedRun {
  exports: unknown;
  fromCache: boolean; // V8 accepted a cache from `dir`
  save(): void; // writes the cache for this file (never throws)
}

/** Runs `file` as CommonJS, compiled with the code cache in `dir` when a trustworthy one is there. */
export function runCached(file: string, dir: string): CachedRun {
  // Wrapped as bytes, so that the compiler gets one flat string rather than a copy of a concatenation.
  const code = Buffer.concat([Buffer.from(WRAP[0]), readFileSync(file), Buffer.from(WRAP[1])]);
  // The key covers exactly what V8 compiles: V8 checks little more than the source length, and
  // runs the cached code of another source of the same length.
  const key = createHash("sha256").update(code).update(`\0${process.version}\0${process.arch}`).digest("hex");
  const path = join(dir, `${basename(file)}-${key.slice(0, 32)}.v8cache`);
  const cached = readCache(dir, path);
  const script = new Script(code.toString("utf8"), {
    filename: file,
    ...(cached === undefined ? {} : { cachedData: cached }),
  });
  const module = { exports: {} as unknown };
  (script.runInThisContext() as (...args: unknown[]) => void).call(
    module.exports,
    module.exports,
    createRequire(file),
    module,
    file,
    dirname(file),
  );
  return {
    exports: module.exports,
    fromCache: cached !== undefined && script.cachedDataRejected === false,
    save: () => writeCache(dir, path, script),
  };
}

function readCache(dir: string, path: string): Buffer | undefined {
  try {
    if (!ownedByMe(lstatSync(dir), "dir")) return undefined;
    const fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0));
    try {
      if (!ownedByMe(fstatSync(fd), "file")) return undefined;
      const data = readFileSync(fd);
      const payload = data.subarray(CHECKSUM_BYTES);
      return payload.length > 0 && sha256(payload).equals(data.subarray(0, CHECKSUM_BYTES)) ? payload : undefined;
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

function writeCache(dir: string, path: string, script: Script): void {
  const temp = `${path}.${process.pid}.tmp`;
  try {
    makePrivateDir(dir);
    if (!ownedByMe(lstatSync(dir), "dir")) return;
    const payload = script.createCachedData();
    writeFileSync(temp, Buffer.concat([sha256(payload), payload]), { mode: 0o600, flag: "wx" });
    renameSync(temp, path);
  } catch {
    try {
      rmSync(temp, { force: true });
    } catch {
      // nothing to clean up, or it cannot be: the cache is only ever an optimisation
    }
  }
}

/** A real directory or file of the current user that no one else may write (POSIX). */
function ownedByMe(stats: Stats, kind: "dir" | "file"): boolean {
  if (!(kind === "dir" ? stats.isDirectory() : stats.isFile())) return false;
  if (process.getuid === undefined) return true;
  return stats.uid === process.getuid() && (stats.mode & 0o022) === 0;
}

function sha256(data: Buffer): Buffer {
  return createHash("sha256").update(data).digest();
}
