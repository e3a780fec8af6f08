import { existsSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../model/index.js";

/** The user's policies (`<data dir>/policies`) when that directory exists, else the shipped ones. */
export function defaultPolicyDir(dataDir: string): string {
  const own = join(dataDir, "policies");
  return existsSync(own) ? own : join(packageRoot, "policies");
}
