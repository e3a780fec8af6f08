import { join, resolve } from "node:path";
import { checkPolicySources, policyError, type PolicyOptions, type PolicySource } from "../policy/index.js";
import type { Policy, PolicyProblem } from "../policy/index.js";
import { listDir } from "./list-dir.js";
import { readTextFile } from "./read-file.js";

/**
 * Read every `*.toml` directly in `dir` (subfolders such as tests/ are not policy) and check them
 * together. An entry that cannot be read (a directory named x.toml, a broken link, a file without
 * permission) is a problem naming it, reported with all the others.
 */
export function checkPolicy(dir: string, options: PolicyOptions): { policy?: Policy; problems: PolicyProblem[] } {
  const root = resolve(dir);
  const listing = listDir(root);
  if ("problem" in listing)
    return { problems: [{ file: root, message: `cannot read the policy directory: ${listing.problem}` }] };
  const names = listing.names.filter((n) => n.endsWith(".toml"));
  if (names.length === 0) return { problems: [{ file: root, message: "no policy files (*.toml) in the directory" }] };
  const unreadable: PolicyProblem[] = [];
  const sources: PolicySource[] = [];
  for (const name of names) {
    const file = join(root, name);
    const read = readTextFile(file);
    if ("problem" in read) unreadable.push({ file, message: read.problem });
    else sources.push({ file, text: read.text });
  }
  const checked = checkPolicySources(root, sources, options);
  return unreadable.length === 0 ? checked : { problems: [...unreadable, ...checked.problems] };
}

/** `checkPolicy`, throwing one config_error (the first problem in the message, all in details). */
export function loadPolicy(dir: string, options: PolicyOptions): Policy {
  const { policy, problems } = checkPolicy(dir, options);
  if (policy !== undefined) return policy;
  throw policyError(problems);
}
