import { TomlDate } from "smol-toml";
import { parseToml } from "../model/index.js";
import { lineOf, type FieldPath, type KeyLines } from "../model/index.js";
import { resolveForUser, type PolicyUser } from "./resolve-for-user.js";
import { DefaultDecision, PolicyFile, PolicyRule, TrustedEntry, type PolicyProblem } from "./schema.js";

/** One policy file's text, read: what is valid in it (even when other parts are not), and every problem. */
export interface ParsedPolicyFile {
  content?: PolicyFile; // the whole file, present exactly when it has no problem
  default?: DefaultDecision;
  rules: { rule: PolicyRule; index: number }[]; // every rule that is valid by itself, with its position
  // every [[trusted]] entry that is valid by itself, with its position
  trusted: { entry: TrustedEntry; index: number }[];
  problems: PolicyProblem[];
  lines: KeyLines;
}

/**
 * Parse and validate one policy file's text, resolved for `user` (see resolveForUser). Every
 * problem of every rule is reported, and the rules that are valid by themselves are kept, so that
 * the checks across files and against the manifests still see them.
 */
export function parsePolicyFile(file: string, text: string, user: PolicyUser): ParsedPolicyFile {
  const parsed = parseToml(text);
  if (parsed.problem !== undefined)
    return { rules: [], trusted: [], problems: [{ file, ...parsed.problem }], lines: parsed.lines };
  const { value: raw, lines } = parsed;
  const at = (path: FieldPath, message: string): PolicyProblem => problemAt(file, lines, raw, path, message);

  const dates = findDates(raw);
  const problems = dates.map((path) => at(path, "dates are not allowed in a policy"));
  const isDate = new Set(dates.map((path) => path.join(".")));
  const expanded = resolvedForUser(raw, user);
  const result = PolicyFile.safeParse(expanded);
  if (result.success && dates.length === 0) {
    const trusted = (result.data.trusted ?? []).map((entry, index) => ({ entry, index }));
    return {
      content: result.data,
      default: result.data.default,
      rules: result.data.rules.map((rule, index) => ({ rule, index })),
      trusted,
      problems,
      lines,
    };
  }
  for (const issue of result.error?.issues ?? []) {
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys)
        problems.push(at([...(issue.path as FieldPath), key], unknownKeyMessage(issue.path, key)));
    } else if (!isDate.has(issue.path.join("."))) {
      problems.push(
        at(
          issue.path as FieldPath,
          isOwnAddressMisused(valueAt(expanded, issue.path)) ? OWN_ADDRESS_MISUSED : issue.message,
        ),
      );
    }
  }
  // What is valid by itself still takes part in the checks that look at the whole policy.
  const rawRules = isRecord(expanded) && Array.isArray(expanded.rules) ? expanded.rules : [];
  const rules = rawRules.flatMap((rule, index) => {
    const one = PolicyRule.safeParse(rule);
    return one.success && !dates.some((d) => d[0] === "rules" && d[1] === index) ? [{ rule: one.data, index }] : [];
  });
  const rawTrusted = isRecord(expanded) && Array.isArray(expanded.trusted) ? expanded.trusted : [];
  const trusted = rawTrusted.flatMap((entry, index) => {
    const one = TrustedEntry.safeParse(entry);
    return one.success && !dates.some((d) => d[0] === "trusted" && d[1] === index) ? [{ entry: one.data, index }] : [];
  });
  const fallback = DefaultDecision.safeParse(isRecord(raw) ? raw.default : undefined);
  return { ...(fallback.success ? { default: fallback.data } : {}), rules, trusted, problems, lines };
}

const WHEN_EXAMPLES: Readonly<Record<string, string>> = {
  args: "when = { args = { to = { in = [...] } } }",
  count: "when = { count = { max = 3 } }",
  distinct: 'when = { distinct = "to" }',
};

/** A condition written beside `when` instead of inside it says where it belongs. */
function unknownKeyMessage(path: readonly PropertyKey[], key: string): string {
  const inRule = path.length === 2 && path[0] === "rules";
  const example = WHEN_EXAMPLES[key];
  return inRule && example !== undefined ? `unknown key: ${key} belongs inside when, e.g. ${example}` : "unknown key";
}

function resolvedForUser(raw: Record<string, unknown>, user: PolicyUser): Record<string, unknown> {
  if (!Array.isArray(raw.rules)) return raw;
  const rules = raw.rules.map((rule: unknown) => {
    if (!isRecord(rule) || !isRecord(rule.when) || !isRecord(rule.when.args)) return rule;
    const args = Object.fromEntries(Object.entries(rule.when.args).map(([k, c]) => [k, resolveForUser(c, user)]));
    return { ...rule, when: { ...rule.when, args } };
  });
  return { ...raw, rules };
}

/** Every TOML date in the value (the parse limits its depth, so recursion is safe); `path` is a work list. */
function findDates(
  value: unknown,
  path: (string | number)[] = [],
  found: (string | number)[][] = [],
): (string | number)[][] {
  if (value instanceof TomlDate) found.push([...path]);
  else if (Array.isArray(value)) {
    value.forEach((inner, i) => {
      path.push(i);
      findDates(inner, path, found);
      path.pop();
    });
  } else if (typeof value === "object" && value !== null) {
    for (const key in value) {
      path.push(key);
      findDates((value as Record<string, unknown>)[key], path, found);
      path.pop();
    }
  }
  return found;
}

function problemAt(
  file: string,
  lines: KeyLines,
  raw: Record<string, unknown>,
  path: FieldPath,
  message: string,
): PolicyProblem {
  const inRule = path[0] === "rules" && typeof path[1] === "number";
  const ruleIndex = inRule ? (path[1] as number) : undefined;
  const rawRule = ruleIndex !== undefined && Array.isArray(raw.rules) ? raw.rules[ruleIndex] : undefined;
  const rule =
    isRecord(rawRule) && typeof rawRule.id === "string"
      ? rawRule.id
      : ruleIndex === undefined
        ? undefined
        : `#${ruleIndex + 1}`;
  const fieldPath = (inRule ? path.slice(2) : path).map(String).join(".");
  const line = lineOf(lines, path);
  return {
    file,
    ...(rule === undefined ? {} : { rule }),
    ...(fieldPath === "" ? {} : { field: fieldPath }),
    ...(line === undefined ? {} : { line }),
    message,
  };
}

const OWN_ADDRESS_MISUSED =
  "own_address takes only true, as in { own_address = true } (to exclude your address: { not = { own_address = true } })";

/** An own_address that resolveForUser left as written: any value but true. */
function isOwnAddressMisused(value: unknown): boolean {
  return isRecord(value) && Object.keys(value).length === 1 && "own_address" in value;
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>(
    (v, key) => (isRecord(v) || Array.isArray(v) ? (v as Record<PropertyKey, unknown>)[key] : undefined),
    value,
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
