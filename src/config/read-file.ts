import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync } from "node:fs";

/** The most a configuration file (or a connector's wasm) may hold; a 10,000-rule policy is about 1 MB. */
export const MAX_CONFIG_FILE_BYTES = 16 * 1024 * 1024;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Read a file countersign is configured by, or say in a few words why it cannot be: a directory,
 * a broken symbolic link, a FIFO or device (opened without blocking, never read), no permission,
 * too large. Never throws and never waits on anything but the disk.
 */
export function readFileBytes(path: string): { bytes: Uint8Array } | { problem: string } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    return { problem: openProblem(path, err) };
  }
  try {
    const info = fstatSync(fd);
    if (info.isDirectory()) return { problem: "is a directory, not a file" };
    if (!info.isFile()) return { problem: "is not a regular file" };
    if (info.size > MAX_CONFIG_FILE_BYTES) return { problem: `is larger than ${MAX_CONFIG_FILE_BYTES} bytes` };
    return { bytes: readFileSync(fd) };
  } catch (err) {
    return { problem: `cannot be read: ${codeOf(err)}` };
  } finally {
    closeSync(fd);
  }
}

/** `readFileBytes` as UTF-8 text; invalid UTF-8 is a problem, never replacement characters. */
export function readTextFile(path: string): { text: string } | { problem: string } {
  const read = readFileBytes(path);
  if ("problem" in read) return read;
  try {
    return { text: utf8.decode(read.bytes) };
  } catch {
    return { problem: "is not valid UTF-8 text" };
  }
}

function openProblem(path: string, err: unknown): string {
  const code = codeOf(err);
  if (code === "EISDIR") return "is a directory, not a file";
  if (code === "ELOOP") return "is a symbolic link loop";
  if (code === "ENOENT")
    return isSymlink(path) ? "is a broken symbolic link (its target does not exist)" : "does not exist";
  if (code === "EACCES") return "cannot be read: permission denied";
  return `cannot be read: ${code}`;
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

function codeOf(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));
}
