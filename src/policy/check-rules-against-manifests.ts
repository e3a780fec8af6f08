import { matchOp } from "../constraint/index.js";
import type { ManifestSet } from "../manifest/index.js";
import type { PolicyRule } from "./schema.js";

/** A problem of one rule, at a path inside it (["when", "args", "to"]). */
export interface RuleProblem {
  path: string[];
  message: string;
}

/**
 * A rule that names no action, or an input its actions do not have, would silently never match:
 * a typo must be an error. A glob must match some action; an input is fine if any action the
 * rule's op matches declares or resolves it.
 */
export function checkRuleAgainstManifests(rule: PolicyRule, set: ManifestSet): RuleProblem[] {
  const unknown = checkOpPattern(rule.op, set);
  if (unknown !== undefined) return [{ path: ["op"], message: unknown }];
  const actions = [...set.actions.values()].filter((a) => matchOp(rule.op, a.op));
  const problems: RuleProblem[] = [];
  // The inputs the wrapper resolves before each call (send_draft's `to`) are checked as arguments too.
  const inputs = new Set(
    actions.flatMap((a) => [...a.manifest.inputs.map((i) => i.name), ...Object.keys(a.manifest.resolve?.inputs ?? {})]),
  );
  const known = `inputs of ${rule.op}: ${[...inputs].sort().join(", ") || "none"}`;
  for (const name of Object.keys(rule.when?.args ?? {})) {
    if (!inputs.has(name))
      problems.push({ path: ["when", "args", name], message: `"${name}" is not an input of ${rule.op} (${known})` });
  }
  const distinct = rule.when?.distinct;
  if (distinct !== undefined && !inputs.has(distinct))
    problems.push({ path: ["when", "distinct"], message: `"${distinct}" is not an input of ${rule.op} (${known})` });
  return problems;
}

/** Why an op pattern selects no action of the manifests, or undefined when it selects some. */
export function checkOpPattern(pattern: string, set: ManifestSet): string | undefined {
  if ([...set.actions.values()].some((a) => matchOp(pattern, a.op))) return undefined;
  return pattern.includes("*")
    ? `"${pattern}" matches no action in the manifests`
    : `no action "${pattern}" in the manifests`;
}
