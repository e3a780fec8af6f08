import { resolve } from "node:path";
import { dataDir } from "../config/index.js";
import { manifestDirFor } from "../config/index.js";
import { defaultPolicyDir } from "../config/index.js";
import type { Io } from "./command.js";

/**
 * The manifest directory a command uses: the one given (relative to the cwd), else the default;
 * `own` when that default is the user's folder, which replaces the shipped manifests.
 */
export function manifestDirOf(io: Io, given: string | undefined): { dir: string; own: boolean } {
  return manifestDirFor(dataDir(io.env), given === undefined ? undefined : resolve(io.cwd, given));
}

/** The policy directory a command uses: the one given (relative to the cwd), else the default. */
export function policyDirOf(io: Io, given: string | undefined): string {
  return given === undefined ? defaultPolicyDir(dataDir(io.env)) : resolve(io.cwd, given);
}

/** The manifest and policy directories given on the command line, resolved against the cwd. */
export function given(
  io: Io,
  values: { manifests?: string; policies?: string },
): { manifests?: string; policies?: string } {
  return {
    ...(values.manifests === undefined ? {} : { manifests: resolve(io.cwd, values.manifests) }),
    ...(values.policies === undefined ? {} : { policies: resolve(io.cwd, values.policies) }),
  };
}
