import { matchOp } from "../constraint/index.js";
import type { ManifestSet } from "../manifest/manifest-set.js";
import type { LoadedRule, PolicyProblem } from "./schema.js";

/**
 * A rule that names no action, or an input its actions do not have, would silently never match:
 * a typo must be an error. A glob must match some action; an input is fine if any action the
 * rule's op matches declares it.
 */
export function checkRulesAgainstManifests(rules: LoadedRule[], set: ManifestSet): PolicyProblem[] {
  const problems: PolicyProblem[] = [];
  const report = (rule: LoadedRule, field: string, message: string) => {
    problems.push({ file: rule.file, rule: rule.id, field, message });
  };
  for (const rule of rules) {
    const actions = [...set.actions.values()].filter((a) => matchOp(rule.op, a.op));
    if (actions.length === 0) {
      report(rule, "op", rule.op.includes("*") ? `"${rule.op}" matches no action in the manifests` : `no action "${rule.op}" in the manifests`);
      continue;
    }
    const inputs = new Set(actions.flatMap((a) => a.manifest.inputs.map((i) => i.name)));
    const known = `inputs of ${rule.op}: ${[...inputs].sort().join(", ") || "none"}`;
    for (const name of Object.keys(rule.when?.args ?? {})) {
      if (!inputs.has(name)) report(rule, `when.args.${name}`, `"${name}" is not an input of ${rule.op} (${known})`);
    }
    const distinct = rule.when?.distinct;
    if (distinct !== undefined && !inputs.has(distinct)) report(rule, "when.distinct", `"${distinct}" is not an input of ${rule.op} (${known})`);
  }
  return problems;
}
