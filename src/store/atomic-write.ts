import { closeSync, fsyncSync, linkSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { dirname } from "node:path";

/**
 * Write a file so that readers (and a crash) see either the old content or the new, never a
 * part: write a temp file beside it with `mode`, fsync, then rename over the target (or, with
 * `exclusive`, hard-link it into place, which fails with EEXIST if another writer got there first).
 */
export function writeFileAtomic(path: string, data: string, mode: number, { exclusive = false } = {}): void {
  const temp = `${path}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  const fd = openSync(temp, "wx", mode);
  try {
    try {
      writeSync(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (exclusive) linkSync(temp, path);
    else renameSync(temp, path);
  } finally {
    try {
      unlinkSync(temp); // after rename it is gone already; after link it is the second name
    } catch {}
  }
  syncDir(dirname(path));
}

/** Make the rename itself durable. Some filesystems refuse fsync on a directory: not fatal. */
function syncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
