import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { ManifestSet } from "../manifest/manifest-set.js";
import { CountersignError } from "../model/errors.js";
import { checkRulesAgainstManifests } from "./check-rules-against-manifests.js";
import { locate } from "./locate.js";
import { parsePolicyFile } from "./parse-policy-file.js";
import { policyHash } from "./policy-hash.js";
import type { DefaultDecision, LoadedRule, Policy, PolicyFile, PolicyProblem } from "./schema.js";

export interface LoadPolicyOptions {
  /** When given, every rule's op and inputs must exist in these manifests. */
  manifests?: ManifestSet;
  /** Where `~` in `under` paths points: the home of the user whose policy it is. */
  home: string;
}

/**
 * Read every `*.toml` directly in `dir` (subfolders such as tests/ are not policy) and report
 * every problem at once. Any file may hold rules; at most one may set `default`, and without one
 * the default is "ask". Rule ids are unique across files.
 */
export function checkPolicy(dir: string, options: LoadPolicyOptions): { policy?: Policy; problems: PolicyProblem[] } {
  const root = resolve(dir);
  let names: string[];
  try {
    names = readdirSync(root).filter((n) => n.endsWith(".toml")).sort();
  } catch (err) {
    return { problems: [{ file: root, message: `cannot read the policy directory: ${(err as Error).message}` }] };
  }
  if (names.length === 0) return { problems: [{ file: root, message: "no policy files (*.toml) in the directory" }] };

  const { home } = options;
  const problems: PolicyProblem[] = [];
  const parsed: { file: string; text: string; content: PolicyFile }[] = [];
  for (const name of names) {
    const file = join(root, name);
    const text = readFileSync(file, "utf8");
    const result = parsePolicyFile(file, text, home);
    problems.push(...result.problems);
    if (result.content !== undefined) parsed.push({ file, text, content: result.content });
  }

  let fallback: { value: DefaultDecision; file: string } | undefined;
  const rules: LoadedRule[] = [];
  const where = new Map<LoadedRule, { text: string; index: number }>();
  const ids = new Map<string, string>();
  for (const { file, text, content } of parsed) {
    if (content.default !== undefined) {
      if (fallback === undefined) fallback = { value: content.default, file };
      else problems.push(withLine({ file, field: "default", message: `default is already set in ${fallback.file}; only one policy file may set it` }, text));
    }
    content.rules.forEach((rule, index) => {
      const loaded: LoadedRule = { ...rule, file };
      const first = ids.get(rule.id);
      if (first !== undefined) {
        problems.push(withLine({ file, rule: rule.id, field: "id", message: `rule id "${rule.id}" is already used in ${first}` }, text, index));
        return;
      }
      ids.set(rule.id, file);
      rules.push(loaded);
      where.set(loaded, { text, index });
    });
  }
  if (options.manifests !== undefined) {
    for (const problem of checkRulesAgainstManifests(rules, options.manifests)) {
      const rule = rules.find((r) => r.id === problem.rule && r.file === problem.file);
      const at = rule === undefined ? undefined : where.get(rule);
      problems.push(at === undefined ? problem : withLine(problem, at.text, at.index));
    }
  }
  if (problems.length > 0) return { problems };
  const policy: Policy = {
    dir: root,
    files: parsed.map((p) => p.file),
    default: fallback?.value ?? "ask",
    rules,
    sha256: policyHash(parsed),
  };
  return { policy, problems };
}

/** Load a policy or throw a config_error naming the first problem (all of them in details). */
export function loadPolicy(dir: string, options: LoadPolicyOptions): Policy {
  const { policy, problems } = checkPolicy(dir, options);
  const first = problems[0];
  if (policy !== undefined && first === undefined) return policy;
  throw new CountersignError("config_error", "policy", first === undefined ? "invalid policy" : formatProblem(first), {
    details: { ...first, problems },
  });
}

/** `file:line: rule "id": field: message` — every part that is known. */
export function formatProblem(p: PolicyProblem): string {
  const at = p.line === undefined ? p.file : `${p.file}:${p.line}`;
  const rule = p.rule === undefined ? "" : ` rule "${p.rule}":`;
  const field = p.field === undefined ? "" : ` ${p.field}:`;
  return `${at}:${rule}${field} ${p.message}`;
}

function withLine(problem: PolicyProblem, text: string, ruleIndex?: number): PolicyProblem {
  const line = locate(text, ruleIndex, problem.field);
  return line === undefined ? problem : { ...problem, line };
}
