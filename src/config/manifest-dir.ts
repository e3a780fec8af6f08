import { existsSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../model/paths.js";

/** The user's manifests (`<data dir>/manifests`) when that directory exists, else the shipped ones. */
export function defaultManifestDir(dataDir: string): string {
  const user = join(dataDir, "manifests");
  return existsSync(user) ? user : join(packageRoot, "manifests");
}
