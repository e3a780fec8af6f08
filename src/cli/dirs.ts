import { join, resolve } from "node:path";
import { dataDir, defaultManifestDir, defaultPolicyDir, homeDir, type ManifestDirOptions } from "../config/index.js";
import type { Io } from "./command.js";

/**
 * The manifest directory a command uses: the one given (relative to the cwd), else the default;
 * `own` when that default is the user's folder, which replaces the shipped manifests.
 */
export function manifestDirOf(io: Io, given: string | undefined): { dir: string } & ManifestDirOptions {
  if (given !== undefined) return { dir: resolve(io.cwd, given) };
  const data = dataDir(io.env);
  const dir = defaultManifestDir(data);
  return { dir, own: dir === join(data, "manifests") };
}

/** The policy directory a command uses: the one given (relative to the cwd), else the default. */
export function policyDirOf(io: Io, given: string | undefined): string {
  return given === undefined ? defaultPolicyDir(dataDir(io.env)) : resolve(io.cwd, given);
}

/** What `~` in a policy means for this command: the home of the user running it. */
export function homeOf(io: Io): string {
  return homeDir(io.env);
}
