import { parse, TomlDate, TomlError } from "smol-toml";
import type { z } from "zod";
import { expandHome } from "./expand-home.js";
import { locate } from "./locate.js";
import { PolicyFile, type PolicyProblem } from "./schema.js";

/** Parse and validate one policy file's text; `~` in `under` paths expands against `home`. */
export function parsePolicyFile(file: string, text: string, home: string): { content?: PolicyFile; problems: PolicyProblem[] } {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (err) {
    const line = err instanceof TomlError ? err.line : undefined;
    const message = err instanceof Error ? err.message.split("\n")[0]! : String(err);
    return { problems: [{ file, ...(line === undefined ? {} : { line }), message: `not valid TOML: ${message}` }] };
  }
  const date = findDate(raw, []);
  if (date !== undefined) return { problems: [problemAt(file, text, raw, date, "dates are not allowed in a policy")] };
  const result = PolicyFile.safeParse(withHomeExpanded(raw, home));
  if (result.success) return { content: result.data, problems: [] };
  return { problems: result.error.issues.map((issue) => problemAt(file, text, raw, fullPath(issue), messageOf(issue))) };
}

function withHomeExpanded(raw: unknown, home: string): unknown {
  if (!isRecord(raw) || !Array.isArray(raw.rules)) return raw;
  const rules = raw.rules.map((rule: unknown) => {
    if (!isRecord(rule) || !isRecord(rule.when) || !isRecord(rule.when.args)) return rule;
    const args = Object.fromEntries(Object.entries(rule.when.args).map(([k, c]) => [k, expandHome(c, home)]));
    return { ...rule, when: { ...rule.when, args } };
  });
  return { ...raw, rules };
}

function findDate(value: unknown, path: PropertyKey[]): PropertyKey[] | undefined {
  if (value instanceof TomlDate) return path;
  if (typeof value !== "object" || value === null) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    const found = findDate(inner, [...path, Array.isArray(value) ? Number(key) : key]);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Unknown keys are reported at their own path, so the field names the typo. */
function fullPath(issue: z.core.$ZodIssue): PropertyKey[] {
  return issue.code === "unrecognized_keys" ? [...issue.path, issue.keys.join(", ")] : issue.path;
}

function messageOf(issue: z.core.$ZodIssue): string {
  if (issue.code === "unrecognized_keys") return "unknown key";
  return issue.message;
}

function problemAt(file: string, text: string, raw: unknown, path: PropertyKey[], message: string): PolicyProblem {
  const inRule = path[0] === "rules" && typeof path[1] === "number";
  const ruleIndex = inRule ? (path[1] as number) : undefined;
  const rawRule = isRecord(raw) && Array.isArray(raw.rules) && ruleIndex !== undefined ? raw.rules[ruleIndex] : undefined;
  const rule = isRecord(rawRule) && typeof rawRule.id === "string" ? rawRule.id : ruleIndex === undefined ? undefined : `#${ruleIndex + 1}`;
  const fieldPath = (inRule ? path.slice(2) : path).map(String).join(".");
  const field = fieldPath === "" ? undefined : fieldPath;
  const line = locate(text, ruleIndex, field);
  return {
    file,
    ...(rule === undefined ? {} : { rule }),
    ...(field === undefined ? {} : { field }),
    ...(line === undefined ? {} : { line }),
    message,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
