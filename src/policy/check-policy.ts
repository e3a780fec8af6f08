import type { ManifestSet } from "../manifest/index.js";
import { CountersignError } from "../model/index.js";
import { lineOf, type FieldPath, type KeyLines } from "../model/index.js";
import { checkOpPattern, checkRuleAgainstManifests } from "./check-rules-against-manifests.js";
import { parsePolicyFile } from "./parse-policy-file.js";
import { policyHash } from "./policy-hash.js";
import {
  DEFAULT_GIVEN_HOURS,
  type DefaultDecision,
  type LoadedRule,
  type LoadedTrustedEntry,
  type Policy,
  type PolicyFile,
  type PolicyProblem,
} from "./schema.js";

export interface PolicyOptions {
  /** When given, every rule's op and inputs must exist in these manifests. */
  manifests?: ManifestSet;
  /** Where `~` in `under` paths points: the home of the user whose policy it is. */
  home: string;
  /** The user's own mail addresses (connections.toml), what `{ own_address = true }` matches; none when left out. */
  ownAddresses?: readonly string[];
}

/** One policy file as read: its path (absolute) and its text. */
export interface PolicySource {
  file: string;
  text: string;
}

/**
 * Check the policy made of `sources` (the `*.toml` files of one folder) and report every problem
 * of every file and rule in one pass, each with its line. Any file may hold rules; at most one may
 * set `default`, and without one the default is "ask". Rule ids are unique across files. Linear in
 * the size of the files (and the rules times the actions).
 */
export function checkPolicySources(
  dir: string,
  sources: readonly PolicySource[],
  options: PolicyOptions,
): { policy?: Policy; problems: PolicyProblem[] } {
  const problems: PolicyProblem[] = [];
  const whole: { file: string; content: PolicyFile }[] = [];
  let fallback: { value: DefaultDecision; file: string } | undefined;
  let givenHours: { value: number; file: string } | undefined;
  const rules: LoadedRule[] = [];
  const trusted: LoadedTrustedEntry[] = [];
  const ids = new Map<string, string>();
  const handles = new Set<string>();
  for (const { file, text } of sources) {
    const parsed = parsePolicyFile(file, text, { home: options.home, ownAddresses: options.ownAddresses ?? [] });
    problems.push(...parsed.problems);
    if (parsed.content !== undefined) whole.push({ file, content: parsed.content });
    const at = (path: FieldPath, problem: Omit<PolicyProblem, "file" | "line">): PolicyProblem =>
      withLine({ file, ...problem }, parsed.lines, path);
    if (parsed.default !== undefined) {
      if (fallback === undefined) fallback = { value: parsed.default, file };
      else
        problems.push(
          at(["default"], {
            field: "default",
            message: `default is already set in ${fallback.file}; only one policy file may set it`,
          }),
        );
    }
    const hours = parsed.content?.given_hours;
    if (hours !== undefined) {
      if (givenHours === undefined) givenHours = { value: hours, file };
      else
        problems.push(
          at(["given_hours"], {
            field: "given_hours",
            message: `given_hours is already set in ${givenHours.file}; only one policy file may set it`,
          }),
        );
    }
    for (const { entry, index } of parsed.trusted) {
      trusted.push({ ...entry, file });
      const unknownOp = options.manifests === undefined ? undefined : checkOpPattern(entry.op, options.manifests);
      if (unknownOp !== undefined)
        problems.push(at(["trusted", index, "op"], { field: `trusted.${index}.op`, message: unknownOp }));
    }
    for (const [index, pattern] of (parsed.content?.handles ?? []).entries()) {
      handles.add(pattern);
      if (options.manifests === undefined) continue;
      const problem = checkOpPattern(pattern, options.manifests);
      if (problem !== undefined) problems.push(at(["handles", index], { field: `handles.${index}`, message: problem }));
    }
    for (const { rule, index } of parsed.rules) {
      const first = ids.get(rule.id);
      if (first !== undefined) {
        problems.push(
          at(["rules", index, "id"], {
            rule: rule.id,
            field: "id",
            message: `rule id "${rule.id}" is already used in ${first}`,
          }),
        );
        continue;
      }
      ids.set(rule.id, file);
      rules.push({ ...rule, file });
      if (options.manifests === undefined) continue;
      for (const p of checkRuleAgainstManifests(rule, options.manifests)) {
        problems.push(at(["rules", index, ...p.path], { rule: rule.id, field: p.path.join("."), message: p.message }));
      }
    }
  }
  if (problems.length > 0) return { problems };
  const policy: Policy = {
    dir,
    files: sources.map((s) => s.file),
    default: fallback?.value ?? "ask",
    givenHours: givenHours?.value ?? DEFAULT_GIVEN_HOURS,
    ownAddresses: options.ownAddresses ?? [],
    rules,
    ...(trusted.length === 0 ? {} : { trusted }),
    handles: [...handles].sort(),
    sha256: policyHash(whole),
  };
  return { policy, problems };
}

/** The config_error for a policy that has problems: the first in the message, all of them in details. */
export function policyError(problems: readonly PolicyProblem[]): CountersignError {
  const first = problems[0];
  return new CountersignError("config_error", "policy", first === undefined ? "invalid policy" : formatProblem(first), {
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

function withLine(problem: PolicyProblem, lines: KeyLines, path: FieldPath): PolicyProblem {
  const line = lineOf(lines, path);
  return line === undefined ? problem : { ...problem, line };
}
