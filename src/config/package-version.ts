import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../model/paths.js"; // a light entry: every command imports this module

/** The installed package's version, from its package.json. */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")) as { version: string }).version;
}
