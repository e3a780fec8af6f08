import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmdirSync,
} from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { CountersignError } from "../model/index.js";
import { writeFileAtomic } from "../store/index.js";
import type { Capabilities, FsRoot } from "./capabilities.js";
import type { Limits } from "./limits.js";
import { isPathUnder, normalizePath } from "../constraint/index.js";

export const FsPathRequest = z.object({ path: z.string().min(1) }).strict();
export const FsWriteRequest = z.object({ path: z.string().min(1), content: z.string() }).strict();
/** `of`: the folders a write of the file would make (its parents), or a make_dir of the folder (the path too). */
export const FsMissingDirsRequest = z.object({ path: z.string().min(1), of: z.enum(["file", "dir"]) }).strict();

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
 * trip of two thread hand-offs, several times the operation itself.
 */

const FD_DIR = "/proc/self/fd";
const HAS_FD_DIR = process.platform === "linux" && existsSync(FD_DIR);
// O_NONBLOCK: opening a FIFO put where a file was checked must not block the host's thread.
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const DIR_FLAGS = READ_FLAGS | constants.O_DIRECTORY;
// A folder is made as `mkdir` makes one: the user's umask decides (0o755 with the usual 022, 0o700
// with 077), as it does for the files written into it (0o666 before the umask).
const DIR_MODE = 0o777;

function denied(
  caps: Capabilities,
  path: string,
  why: string,
  reason: string,
  extra: Record<string, string> = {},
): CountersignError {
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
  return new CountersignError("connector_error", "connector", `${caps.connector}: ${path}: ${code}`, {
    details: { path, code },
  });
}

/**
 * A root the program's path is under: the root, the root as the path names it (given or real), the segments below it.
 */
interface Match {
  root: FsRoot;
  base: string;
  below: string[];
}

/** Where a program's path lands: the most specific root it is under, and the real path through it. */
export interface Located extends Match {
  real: string;
  // every root the path is under: none may see a link on the way (a root named through a link below another)
  matches: Match[];
}

/**
 * Place `path` in a root, lexically: absolute, in normal form (no `.`, `..` or empty segment, no
 * trailing slash, no NUL), under a root's given or real path (the longest match), and not inside
 * one of countersign's secrets. Nothing touches the disk here.
 */
function locate(caps: Capabilities, path: string): Located {
  if (!path.startsWith("/")) throw denied(caps, path, "must be an absolute path", "not_absolute");
  if (path.includes("\0")) throw denied(caps, path, "contains a NUL byte", "not_normal");
  // A lone surrogate reaches the disk as U+FFFD: another name than the one checked.
  if (/\p{Surrogate}/u.test(path))
    throw denied(caps, path, "is not well-formed Unicode (a lone surrogate)", "not_normal");
  if (normalizePath(path) !== path)
    throw denied(caps, path, "must be in normal form (no `.`, `..` or empty segment, no trailing slash)", "not_normal");
  const matches: Match[] = [];
  for (const root of caps.roots) {
    for (const base of root.given === root.real ? [root.real] : [root.given, root.real]) {
      if (!isPathUnder(path, base)) continue;
      const rest = path === base ? "" : path.slice(base === "/" ? 1 : base.length + 1);
      matches.push({ root, base, below: rest === "" ? [] : rest.split("/") });
    }
  }
  if (matches.length === 0) throw denied(caps, path, "is outside the configured roots", "outside_roots");
  const best = matches.reduce((a, b) => (b.base.length > a.base.length ? b : a));
  const real = join(best.root.real, ...best.below);
  const secret = caps.secrets.find((s) => isPathUnder(real, s.path));
  if (secret !== undefined) {
    throw denied(
      caps,
      path,
      `is inside ${secret.what}: countersign's own files are out of every program's reach`,
      "secret",
      { secret: secret.path },
    );
  }
  return { ...best, real, matches };
}

/**
 * Refuse a symbolic link among the components under each root the path is under (all of them, or
 * all but the last: a write replaces a link there instead of following it); a walk stops at the
 * first component that does not exist.
 */
function refuseLinks(caps: Capabilities, path: string, at: Located, last: "check" | "skip"): void {
  for (const match of at.matches) {
    let real = match.root.real;
    const count = last === "check" ? match.below.length : match.below.length - 1;
    for (let i = 0; i < count; i++) {
      real = join(real, match.below[i]!);
      const info = lstatSync(real, { throwIfNoEntry: false });
      if (info === undefined) break; // the operation itself reports what is missing
      if (info.isSymbolicLink())
        throw linkDenied(caps, path, [match.base === "/" ? "" : match.base, ...match.below.slice(0, i + 1)].join("/"));
    }
  }
}

/**
 * Open `at.real` (its last component not followed) and make sure the file opened is the one at
 * that path with no link on the way: a directory swapped for a link since the check is refused.
 */
export function openChecked(caps: Capabilities, path: string, at: Located, flags: number): number {
  const { real } = at;
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
      if (readlinkSync(`${FD_DIR}/${fd}`) !== real)
        throw denied(
          caps,
          path,
          "changed while it was opened: a directory on its way became a symbolic link",
          "symlink",
        );
    } else {
      refuseLinks(caps, path, at, "check");
      const opened = fstatSync(fd);
      const now = lstatSync(real);
      if (opened.dev !== now.dev || opened.ino !== now.ino)
        throw denied(caps, path, "changed while it was opened", "symlink");
    }
    return fd;
  } catch (err) {
    closeSync(fd);
    throw failed(caps, path, err);
  }
}

export function fsRead(caps: Capabilities, limits: Limits, path: string): { content: string } {
  const at = locate(caps, path);
  refuseLinks(caps, path, at, "check");
  const notFile = () =>
    new CountersignError("connector_error", "connector", `${caps.connector}: ${path}: not a regular file`, {
      details: { path },
    });
  // Before the open: opening a device or a FIFO can itself do something.
  if (lstatSync(at.real, { throwIfNoEntry: false })?.isFile() === false) throw notFile();
  const fd = openChecked(caps, path, at, READ_FLAGS);
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw notFile();
    if (info.size > limits.maxResponseBytes) {
      throw new CountersignError(
        "resource_limit_exceeded",
        "connector",
        `${caps.connector}: ${path} is larger than ${limits.maxResponseBytes} bytes`,
        {
          details: { path, limit_bytes: limits.maxResponseBytes },
        },
      );
    }
    return { content: readFileSync(fd, "utf8") };
  } catch (err) {
    throw failed(caps, path, err);
  } finally {
    closeSync(fd);
  }
}

/**
 * The names in a directory (listing a folder that holds a secret would show its name; roots never hold one, see
 * loadConnections).
 */
export function fsList(caps: Capabilities, path: string): { entries: { name: string; type: string }[] } {
  const at = locate(caps, path);
  refuseLinks(caps, path, at, "check");
  const fd = openChecked(caps, path, at, DIR_FLAGS);
  try {
    const dirents = readdirSync(HAS_FD_DIR ? `${FD_DIR}/${fd}` : at.real, { withFileTypes: true });
    const entries = dirents
      .map((d) => ({
        name: d.name,
        type: d.isFile() ? "file" : d.isDirectory() ? "dir" : d.isSymbolicLink() ? "symlink" : "other",
      }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { entries };
  } catch (err) {
    throw failed(caps, path, err);
  } finally {
    closeSync(fd);
  }
}

/** The folder made of the first `count` components below the root, as the program's path names it. */
function named(at: Match, count: number): string {
  return `${at.base === "/" ? "" : at.base}/${at.below.slice(0, count).join("/")}`;
}

function notAFolder(caps: Capabilities, path: string, what: string): CountersignError {
  return new CountersignError(
    "connector_error",
    "connector",
    `${caps.connector}: ${path}: ${what} exists and is not a folder`,
    {
      details: { path, reason: "not_a_folder", at: what },
    },
  );
}

function rootMissing(caps: Capabilities, path: string, at: Located): CountersignError {
  return denied(
    caps,
    path,
    `its root ${at.root.given} does not exist: folders are made only inside a root, never the root itself`,
    "root_missing",
    {
      root: at.root.given,
    },
  );
}

/** `err` saying which folders were made before it (they stay: making them again is a no-op). */
function withMade(caps: Capabilities, path: string, err: unknown, made: readonly string[]): CountersignError {
  const e = failed(caps, path, err);
  if (made.length === 0) return e;
  return new CountersignError(e.class, e.boundary, `${e.message} (after making ${made.join(", ")}, which stay)`, {
    details: { ...e.details, made_dirs: [...made] },
  });
}

/**
 * The folders on the way to `path` that do not exist yet, changing nothing: for a file, its
 * missing parents; for a folder, its missing parents and itself. Refuses what the operation would
 * refuse before it makes anything: a link on the way, a file where a folder is needed, a missing
 * root. The fs connector reports these as the folders it made (the change itself waits until its
 * call ends, see plugin-in-thread.ts).
 */
export function fsMissingDirs(caps: Capabilities, path: string, of: "file" | "dir"): { dirs: string[] } {
  try {
    return missingDirs(caps, path, of);
  } catch (err) {
    throw failed(caps, path, err);
  }
}

function missingDirs(caps: Capabilities, path: string, of: "file" | "dir"): { dirs: string[] } {
  const at = locate(caps, path);
  if (of === "file" && at.below.length === 0) throw denied(caps, path, "must name a file", "not_a_file");
  if (lstatSync(at.root.real, { throwIfNoEntry: false })?.isDirectory() !== true) throw rootMissing(caps, path, at);
  const depth = of === "file" ? at.below.length - 1 : at.below.length;
  const dirs: string[] = [];
  let real = at.root.real;
  for (let i = 0; i < depth; i++) {
    real = join(real, at.below[i]!);
    const info = lstatSync(real, { throwIfNoEntry: false });
    if (info === undefined) {
      for (let j = i + 1; j <= depth; j++) dirs.push(named(at, j));
      break;
    }
    if (info.isSymbolicLink()) throw linkDenied(caps, path, named(at, i + 1));
    if (!info.isDirectory()) throw notAFolder(caps, path, named(at, i + 1));
  }
  refuseLinks(caps, path, at, of === "file" ? "skip" : "check"); // and under every other root the path is under
  if (of === "file" && dirs.length === 0 && lstatSync(at.real, { throwIfNoEntry: false })?.isDirectory()) {
    throw new CountersignError("connector_error", "connector", `${caps.connector}: ${path}: is a directory`, {
      details: { path },
    });
  }
  return { dirs };
}

/**
 * Open the folder of the first `depth` components of `at` below its root, making each one missing.
 * On Linux each step goes through the descriptor of the folder before it (mkdirat's effect through
 * `/proc/self/fd/<dir>/<name>`): the name is made, then opened without following a link, in the
 * folder that was opened and checked, and the opened folder's real path must be the one expected.
 * A folder that became a link, or a file, where one is needed is refused; one moved away while its
 * child was made is caught by that check, and the child, if made here, removed again. Elsewhere
 * each step is made by path and checked after (the narrow race openChecked describes remains).
 * Returns the open folder and the folders made, as the program's path names them.
 */
function openMakingDirs(caps: Capabilities, path: string, at: Located, depth: number): { fd: number; made: string[] } {
  const made: string[] = [];
  if (!HAS_FD_DIR) {
    let real = at.root.real;
    if (lstatSync(real, { throwIfNoEntry: false })?.isDirectory() !== true) throw rootMissing(caps, path, at);
    try {
      for (let i = 0; i < depth; i++) {
        real = join(real, at.below[i]!);
        if (lstatSync(real, { throwIfNoEntry: false }) === undefined) {
          try {
            mkdirSync(real, DIR_MODE);
            made.push(named(at, i + 1));
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
          }
        }
        const info = lstatSync(real);
        if (info.isSymbolicLink()) throw linkDenied(caps, path, named(at, i + 1));
        if (!info.isDirectory()) throw notAFolder(caps, path, named(at, i + 1));
      }
      const below = at.below.slice(0, depth);
      const dir: Located = {
        ...at,
        below,
        real,
        matches: at.matches.map((m) => ({ ...m, below: m.below.slice(0, m.below.length - at.below.length + depth) })),
      };
      return { fd: openChecked(caps, path, dir, DIR_FLAGS), made };
    } catch (err) {
      throw withMade(caps, path, err, made);
    }
  }
  let real = at.root.real;
  let fd: number;
  try {
    fd = openSync(real, DIR_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") throw rootMissing(caps, path, at);
    throw failed(caps, path, err);
  }
  /** The folder `name` in the open folder `dir`, opened without following a link; null if there is none. */
  const openIn = (dir: number, name: string, shown: string): number | null => {
    try {
      return openSync(`${FD_DIR}/${dir}/${name}`, DIR_FLAGS);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return null;
      if (code === "ELOOP" || code === "EMLINK") throw linkDenied(caps, path, shown);
      if (code === "ENOTDIR") {
        // A link opened with O_DIRECTORY and O_NOFOLLOW may fail so too: say which it is.
        if (lstatSync(`${FD_DIR}/${dir}/${name}`, { throwIfNoEntry: false })?.isSymbolicLink())
          throw linkDenied(caps, path, shown);
        throw notAFolder(caps, path, shown);
      }
      throw err;
    }
  };
  try {
    if (readlinkSync(`${FD_DIR}/${fd}`) !== real)
      throw denied(caps, path, "changed while it was opened: its root is not where it was", "symlink");
    for (let i = 0; i < depth; i++) {
      const name = at.below[i]!;
      const shown = named(at, i + 1);
      let child = openIn(fd, name, shown);
      let madeHere = false;
      if (child === null) {
        try {
          mkdirSync(`${FD_DIR}/${fd}/${name}`, DIR_MODE);
          madeHere = true;
          made.push(shown);
        } catch (err) {
          // EEXIST: made meanwhile by someone else, opened and checked as any folder found
          if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
        }
        if (madeHere) syncFolder(fd);
        child = openIn(fd, name, shown);
        if (child === null)
          throw new CountersignError(
            "connector_error",
            "connector",
            `${caps.connector}: ${path}: ${shown} was removed as it was made`,
            { details: { path } },
          );
      }
      real = join(real, name);
      if (readlinkSync(`${FD_DIR}/${child}`) !== real) {
        closeSync(child);
        if (madeHere) {
          try {
            rmdirSync(`${FD_DIR}/${fd}/${name}`); // empty, and made here: wherever its folder went, it goes
            made.pop();
          } catch {}
        }
        throw denied(
          caps,
          path,
          `changed while its folders were made: ${shown} is no longer where it was checked`,
          "symlink",
          { link: shown },
        );
      }
      closeSync(fd);
      fd = child;
    }
    return { fd, made };
  } catch (err) {
    closeSync(fd);
    throw withMade(caps, path, err, made);
  }
}

/** Make a new folder's name durable in its parent. Some filesystems refuse fsync on a directory: not fatal. */
function syncFolder(fd: number): void {
  try {
    fsyncSync(fd);
  } catch {}
}

/**
 * Make the folder `path`, and each missing folder on its way below its root; a folder already
 * there is fine (`made_dirs` is then empty). Never the root itself, never through a link.
 */
export function fsMakeDir(caps: Capabilities, path: string): { made_dirs: string[] } {
  const at = locate(caps, path);
  refuseLinks(caps, path, at, "check");
  const { fd, made } = openMakingDirs(caps, path, at, at.below.length);
  closeSync(fd);
  return { made_dirs: made };
}

/**
 * Write with the one atomic write (a temp file in the same directory, fsync, rename): a reader, or
 * a crash, sees the old file or the new one, never half of it. The missing folders on the way are
 * made first (see openMakingDirs), and the parent directory is opened and checked as a read is;
 * rename replaces a symlink at the target instead of writing through it. A write that fails after
 * making folders says which (they stay); the file is then not there, nor any part of it.
 */
export function fsWrite(caps: Capabilities, path: string, content: string): { bytes: number; made_dirs: string[] } {
  const at = locate(caps, path);
  if (at.below.length === 0) throw denied(caps, path, "must name a file", "not_a_file");
  refuseLinks(caps, path, at, "skip");
  const name = at.below[at.below.length - 1]!;
  const { fd: dir, made } = openMakingDirs(caps, path, at, at.below.length - 1);
  try {
    const target = HAS_FD_DIR ? `${FD_DIR}/${dir}/${name}` : join(at.root.real, ...at.below);
    const existing = lstatSync(target, { throwIfNoEntry: false });
    if (existing?.isDirectory())
      throw new CountersignError("connector_error", "connector", `${caps.connector}: ${path}: is a directory`, {
        details: { path },
      });
    writeFileAtomic(target, content, 0o666); // the umask applies, as for any new file
    return { bytes: Buffer.byteLength(content), made_dirs: made };
  } catch (err) {
    throw withMade(caps, path, err, made);
  } finally {
    closeSync(dir);
  }
}
