import { existsSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../model/index.js";

/**
 * The manifest directory to use: `given` when there is one; else the user's own
 * (`<data dir>/manifests`) when it exists — it then replaces the shipped ones, which `own` says —
 * else the shipped manifests.
 */
export function manifestDirFor(dataDir: string, given?: string): { dir: string; own: boolean } {
  if (given !== undefined) return { dir: given, own: false };
  const user = join(dataDir, "manifests");
  return existsSync(user) ? { dir: user, own: true } : { dir: join(packageRoot, "manifests"), own: false };
}
