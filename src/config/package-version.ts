import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../model/index.js";

/** The installed package's version, from its package.json. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")) as { version: string }).version;
}
