import { resolve } from "node:path";
import { dataDir, defaultManifestDir, defaultPolicyDir, homeDir } from "../config/index.js";
import type { Io } from "./command.js";

/** The manifest directory a command uses: the one given (relative to the cwd), else the default. */
export function manifestDirOf(io: Io, given: string | undefined): string {
  return given === undefined ? defaultManifestDir(dataDir(io.env)) : resolve(io.cwd, given);
}

/** The policy directory a command uses: the one given (relative to the cwd), else the default. */
export function policyDirOf(io: Io, given: string | undefined): string {
  return given === undefined ? defaultPolicyDir(dataDir(io.env)) : resolve(io.cwd, given);
}

/** What `~` in a policy means for this command: the home of the user running it. */
export function homeOf(io: Io): string {
  return homeDir(io.env);
}
