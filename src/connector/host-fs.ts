import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { CountersignError } from "../model/index.js";
import { writeFileAtomic } from "../store/index.js";
import type { Capabilities, FsRoot } from "./capabilities.js";
import type { Limits } from "./limits.js";
import { isPathUnder, normalizePath } from "../constraint/index.js";

export const FsPathRequest = z.object({ path: z.string().min(1) }).strict();
export const FsWriteRequest = z.object({ path: z.string().min(1), content: z.string() }).strict();

/*
 * The path a grant checked is the path the host acts on. A grant's `under` compares the path
 * lexically, so the host takes only a path in lexical normal form, inside a root, that passes
 * through no symbolic link below the root (a link in the root's own path is the user's, resolved
 * once with the roots): then the lexical path and the real one are the same file. Each file is
 * opened without following its last component, and on Linux the descriptor's real path
 * (/proc/self/fd) must be the one checked, which catches a directory swapped for a link between
 * the check and the open; a write then goes through `/proc/self/fd/<dir>/<name>`, which is the
 * directory that was opened whatever is renamed since. Elsewhere the check is repeated after the
 * open (a narrow race remains there). A hard link is a second name of the same file, no path
 * trick: a hard link inside a root to a file outside reads that file (programs cannot make links).
 *
 * Every operation here is synchronous: a plugin running in the host's thread calls them from inside
 * its wasm, which cannot wait for a promise, and through the thread pool each would cost a round
 * trip of two thread hand-offs (~100 µs), several times the operation itself.
 */

const FD_DIR = "/proc/self/fd";
const HAS_FD_DIR = process.platform === "linux" && existsSync(FD_DIR);
// O_NONBLOCK: opening a FIFO put where a file was checked must not block the host's thread.
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const DIR_FLAGS = READ_FLAGS | constants.O_DIRECTORY;

function denied(caps: Capabilities, path: string, why: string, reason: string, extra: Record<string, string> = {}): CountersignError {
  return new CountersignError("capability_denied", "connector", `${caps.connector}: ${path}: ${why}`, {
    details: { path, reason, roots: caps.roots.map((r) => r.given), ...extra },
  });
}

function linkDenied(caps: Capabilities, path: string, link: string): CountersignError {
  return denied(caps, path, `passes through the symbolic link ${link}: name the file itself`, "symlink", { link });
}

function failed(caps: Capabilities, path: string, err: unknown): CountersignError {
  if (err instanceof CountersignError) return err;
  const code = (err as NodeJS.ErrnoException).code ?? "EIO";
  return new CountersignError("connector_error", "connector", `${caps.connector}: ${path}: ${code}`, { details: { path, code } });
}

/** Where a program's path lands: the root it is under, the path through that root as written, and the real path. */
interface Located {
  root: FsRoot;
  base: string; // the root as the program's path names it (its given or its real path)
  below: string[]; // the segments under the root
  real: string;
}

/**
 * Place `path` in a root, lexically: absolute, in normal form (no `.`, `..` or empty segment, no
 * trailing slash, no NUL), under a root's given or real path (the longest match), and not inside
 * one of countersign's secrets. Nothing touches the disk here.
 */
function locate(caps: Capabilities, path: string): Located {
  if (!path.startsWith("/")) throw denied(caps, path, "must be an absolute path", "not_absolute");
  if (path.includes("\0")) throw denied(caps, path, "contains a NUL byte", "not_normal");
  if (normalizePath(path) !== path) throw denied(caps, path, "must be in normal form (no `.`, `..` or empty segment, no trailing slash)", "not_normal");
  let best: { root: FsRoot; base: string } | undefined;
  for (const root of caps.roots) {
    for (const base of [root.given, root.real]) {
      if (isPathUnder(path, base) && (best === undefined || base.length > best.base.length)) best = { root, base };
    }
  }
  if (best === undefined) throw denied(caps, path, "is outside the configured roots", "outside_roots");
  const rest = path === best.base ? "" : path.slice(best.base === "/" ? 1 : best.base.length + 1);
  const below = rest === "" ? [] : rest.split("/");
  const real = join(best.root.real, ...below);
  const secret = caps.secrets.find((s) => isPathUnder(real, s.path));
  if (secret !== undefined) {
    throw denied(caps, path, `is inside ${secret.what}: countersign's own files are out of every program's reach`, "secret", { secret: secret.path });
  }
  return { ...best, below, real };
}

/** Refuse a symbolic link among the first `count` components under the root; stop at the first that does not exist. */
function refuseLinks(caps: Capabilities, path: string, at: Located, count: number): void {
  let real = at.root.real;
  for (let i = 0; i < count; i++) {
    real = join(real, at.below[i]!);
    const info = lstatSync(real, { throwIfNoEntry: false });
    if (info === undefined) return; // the operation itself reports what is missing
    if (info.isSymbolicLink()) throw linkDenied(caps, path, [at.base === "/" ? "" : at.base, ...at.below.slice(0, i + 1)].join("/"));
  }
}

/**
 * Open `real` (its last component not followed) and make sure the file opened is the one at
 * `real` with no link on the way: a directory swapped for a link since the check is refused.
 */
export function openChecked(caps: Capabilities, path: string, at: Located, real: string, flags: number): number {
  let fd: number;
  try {
    fd = openSync(real, flags);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ELOOP" || code === "EMLINK") throw linkDenied(caps, path, path);
    throw failed(caps, path, err);
  }
  try {
    if (HAS_FD_DIR) {
      if (readlinkSync(`${FD_DIR}/${fd}`) !== real) throw denied(caps, path, "changed while it was opened: a directory on its way became a symbolic link", "symlink");
    } else {
      refuseLinks(caps, path, at, at.below.length);
      const opened = fstatSync(fd);
      const now = lstatSync(real);
      if (opened.dev !== now.dev || opened.ino !== now.ino) throw denied(caps, path, "changed while it was opened", "symlink");
    }
    return fd;
  } catch (err) {
    closeSync(fd);
    throw failed(caps, path, err);
  }
}

export function fsRead(caps: Capabilities, limits: Limits, path: string): { content: string } {
  const at = locate(caps, path);
  refuseLinks(caps, path, at, at.below.length);
  const fd = openChecked(caps, path, at, at.real, READ_FLAGS);
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw new CountersignError("connector_error", "connector", `${caps.connector}: ${path}: not a regular file`, { details: { path } });
    if (info.size > limits.maxResponseBytes) {
      throw new CountersignError("resource_limit_exceeded", "connector", `${caps.connector}: ${path} is larger than ${limits.maxResponseBytes} bytes`, {
        details: { path, limit_bytes: limits.maxResponseBytes },
      });
    }
    return { content: readFileSync(fd, "utf8") };
  } catch (err) {
    throw failed(caps, path, err);
  } finally {
    closeSync(fd);
  }
}

/** The names in a directory (listing a folder that holds a secret would show its name; roots never hold one, see loadConnections). */
export function fsList(caps: Capabilities, path: string): { entries: { name: string; type: string }[] } {
  const at = locate(caps, path);
  refuseLinks(caps, path, at, at.below.length);
  const fd = openChecked(caps, path, at, at.real, DIR_FLAGS);
  try {
    const dirents = readdirSync(HAS_FD_DIR ? `${FD_DIR}/${fd}` : at.real, { withFileTypes: true });
    const entries = dirents
      .map((d) => ({ name: d.name, type: d.isFile() ? "file" : d.isDirectory() ? "dir" : d.isSymbolicLink() ? "symlink" : "other" }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { entries };
  } catch (err) {
    throw failed(caps, path, err);
  } finally {
    closeSync(fd);
  }
}

/**
 * Write with the one atomic write (a temp file in the same directory, fsync, rename): a reader, or
 * a crash, sees the old file or the new one, never half of it. The parent directory is opened and
 * checked as a read is; rename replaces a symlink at the target instead of writing through it.
 */
export function fsWrite(caps: Capabilities, path: string, content: string): { bytes: number } {
  const at = locate(caps, path);
  if (at.below.length === 0) throw denied(caps, path, "must name a file", "not_a_file");
  refuseLinks(caps, path, at, at.below.length - 1);
  const name = at.below[at.below.length - 1]!;
  const parent = { ...at, below: at.below.slice(0, -1), real: join(at.root.real, ...at.below.slice(0, -1)) };
  const dir = openChecked(caps, path, parent, parent.real, DIR_FLAGS);
  try {
    const target = HAS_FD_DIR ? `${FD_DIR}/${dir}/${name}` : join(parent.real, name);
    const existing = lstatSync(target, { throwIfNoEntry: false });
    if (existing?.isDirectory()) throw new CountersignError("connector_error", "connector", `${caps.connector}: ${path}: is a directory`, { details: { path } });
    writeFileAtomic(target, content, 0o666); // the umask applies, as for any new file
    return { bytes: Buffer.byteLength(content) };
  } catch (err) {
    throw failed(caps, path, err);
  } finally {
    closeSync(dir);
  }
}
