import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
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

/** The user's data directory: $COUNTERSIGN_HOME, default ~/.countersign. */
export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.COUNTERSIGN_HOME;
  return home !== undefined && home !== "" ? resolve(home) : join(homedir(), ".countersign");
}
