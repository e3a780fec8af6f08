import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The installed package's root (holds the shipped manifests/, policies/, trusted/), from src/ or dist/src/. */
export const packageRoot: string = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest) && JSON.parse(readFileSync(manifest, "utf8")).name === "countersign") return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error("countersign package root not found");
    dir = parent;
  }
})();

/**
 * Create a private directory (mode 0700) and its parent if they are missing. Not `recursive:
 * true`: Node 20's recursive mkdir spins for ever where mkdir keeps failing with ENOENT (e.g. a
 * data directory under /proc), so a deeper missing path fails with ENOENT instead of hanging.
 */
export function makePrivateDir(path: string): void {
  for (const dir of [dirname(path), path]) {
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
  }
}
