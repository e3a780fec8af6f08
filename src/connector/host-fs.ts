import { lstatSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join } from "node:path";
import { z } from "zod";
import { CountersignError } from "../model/index.js";
import { writeFileAtomic } from "../store/index.js";
import type { Capabilities } from "./capabilities.js";
import type { Limits } from "./limits.js";
import { isPathUnder } from "../constraint/index.js";

export const FsPathRequest = z.object({ path: z.string().min(1) }).strict();
export const FsWriteRequest = z.object({ path: z.string().min(1), content: z.string() }).strict();

function denied(caps: Capabilities, path: string, why: string): CountersignError {
  return new CountersignError("capability_denied", "connector", `${caps.connector}: ${path}: ${why}`, { details: { path, roots: caps.roots } });
}

function failed(caps: Capabilities, path: string, err: unknown): CountersignError {
  const code = (err as NodeJS.ErrnoException).code ?? "EIO";
  return new CountersignError("connector_error", "connector", `${caps.connector}: ${path}: ${code}`, { details: { path, code } });
}

/** Absolute, no NUL, no `..` segment: checked on the path as written, before anything touches the disk. */
function plainPath(caps: Capabilities, path: string): string {
  if (!isAbsolute(path)) throw denied(caps, path, "must be an absolute path");
  if (path.includes("\0")) throw denied(caps, path, "contains a NUL byte");
  if (path.split("/").includes("..")) throw denied(caps, path, "must not contain `..`");
  return path;
}

/**
 * The real path (symlinks resolved), which must lie inside one of the roots. Every operation here
 * is synchronous: a plugin running in the host's thread calls them from inside its wasm, which
 * cannot wait for a promise, and through the thread pool each would cost a round trip of two
 * thread hand-offs (~100 µs), several times the operation itself.
 */
function realInside(caps: Capabilities, path: string): string {
  let real: string;
  try {
    real = realpathSync.native(plainPath(caps, path));
  } catch (err) {
    if (err instanceof CountersignError) throw err;
    throw failed(caps, path, err);
  }
  if (!caps.roots.some((root) => isPathUnder(real, root))) throw denied(caps, path, "is outside the configured roots");
  return real;
}

export function fsRead(caps: Capabilities, limits: Limits, path: string): { content: string } {
  const real = realInside(caps, path);
  try {
    const info = statSync(real);
    if (!info.isFile()) throw new CountersignError("connector_error", "connector", `${caps.connector}: ${path}: not a regular file`, { details: { path } });
    if (info.size > limits.maxResponseBytes) {
      throw new CountersignError("resource_limit_exceeded", "connector", `${caps.connector}: ${path} is larger than ${limits.maxResponseBytes} bytes`, {
        details: { path, limit_bytes: limits.maxResponseBytes },
      });
    }
    return { content: readFileSync(real, "utf8") };
  } catch (err) {
    throw err instanceof CountersignError ? err : failed(caps, path, err);
  }
}

export function fsList(caps: Capabilities, path: string): { entries: { name: string; type: string }[] } {
  const real = realInside(caps, path);
  try {
    const dirents = readdirSync(real, { withFileTypes: true });
    const entries = dirents
      .map((d) => ({ name: d.name, type: d.isFile() ? "file" : d.isDirectory() ? "dir" : d.isSymbolicLink() ? "symlink" : "other" }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { entries };
  } catch (err) {
    throw failed(caps, path, err);
  }
}

/**
 * Write with the one atomic write (a temp file in the same real directory, fsync, rename): a
 * reader, or a crash, sees the old file or the new one, never half of it. The parent's real path
 * is what is checked against the roots, and rename replaces a symlink at the target instead of
 * writing through it.
 */
export function fsWrite(caps: Capabilities, path: string, content: string): { bytes: number } {
  const name = basename(plainPath(caps, path));
  if (name === "" || name === "." || path.endsWith("/")) throw denied(caps, path, "must name a file");
  const parent = realInside(caps, dirname(path));
  const target = join(parent, name);
  try {
    const existing = lstatSync(target, { throwIfNoEntry: false });
    if (existing?.isDirectory()) throw new CountersignError("connector_error", "connector", `${caps.connector}: ${path}: is a directory`, { details: { path } });
    writeFileAtomic(target, content, 0o666); // the umask applies, as for any new file
    return { bytes: Buffer.byteLength(content) };
  } catch (err) {
    throw err instanceof CountersignError ? err : failed(caps, path, err);
  }
}
