import { existsSync } from "node:fs";
import { join } from "node:path";
import { dataDir, packageRoot } from "../model/paths.js";

/** The user's manifests (`$COUNTERSIGN_HOME/manifests`) when that directory exists, else the shipped ones. */
export function defaultManifestDir(env: NodeJS.ProcessEnv = process.env): string {
  const user = join(dataDir(env), "manifests");
  return existsSync(user) ? user : join(packageRoot, "manifests");
}
