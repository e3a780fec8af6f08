import { readdirSync } from "node:fs";

/** The names in a directory, sorted, hidden ones (`.x`) left out; or why it cannot be listed. */
export function listDir(dir: string): { names: string[] } | { problem: string } {
  try {
    return {
      names: readdirSync(dir)
        .filter((name) => !name.startsWith("."))
        .sort(),
    };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { problem: "does not exist" };
    if (code === "ENOTDIR") return { problem: "is not a directory" };
    if (code === "EACCES") return { problem: "permission denied" };
    return { problem: code ?? (err as Error).message };
  }
}
