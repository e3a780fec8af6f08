// A small tmpfs of the test's own, for a full or read-only data directory.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A small tmpfs of our own (root only: a full or read-only disk cannot be had otherwise). */
export function tmpfs(size: string): { dir: string; remount(options: string): void; unmount(): void } {
  if (process.getuid?.() !== 0) throw new Error("these tests mount a tmpfs and need root");
  const dir = join(mkdtempSync(join(tmpdir(), "countersign-tmpfs-")), "data");
  mkdirSync(dir);
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir]);
  return {
    dir,
    remount: (options) => void execFileSync("mount", ["-o", `remount,${options}`, dir]),
    unmount: () => void execFileSync("umount", ["--lazy", dir]), // lazy: a leaked handle must not leave the mount behind
  };
}
