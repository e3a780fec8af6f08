import type { CheckResult } from "../model/index.js";
import { CountersignError } from "../model/errors-plain.js"; // a light entry: the model index loads zod

/**
 * The authority's answer to POST /v1/check, checked for exactly what `check --json` reads and
 * prints, in plain code: the CheckResult schema would load zod and every model schema, which cost
 * more than the whole call. The text output interprets deeper values (abstract arguments, the
 * decision's verdicts) and parses the answer with the full schema before it prints (readCheckAnswerFully).
 * Anything else is an error that says where the answer is wrong, never a crash while printing.
 */
export function readCheckAnswer(value: unknown, url: string): CheckResult {
  const at = (path: string, problem: string): never => malformed(url, path, problem);
  const answer = record(value, "the answer", at);
  const facts = record(answer.facts, "facts", at);
  const program = record(facts.program, "facts.program", at);
  if (typeof program.sha256 !== "string" || !SHA256.test(program.sha256))
    at("facts.program.sha256", "is not a sha256 in hex");
  text(program.entry, "facts.program.entry", at);
  if (typeof facts.ok !== "boolean") at("facts.ok", "is not a boolean");
  list(facts.diagnostics, "facts.diagnostics", at).forEach((d, i) => {
    const path = `facts.diagnostics[${i}]`;
    const diagnostic = record(d, path, at);
    if (diagnostic.severity !== "error" && diagnostic.severity !== "warning")
      at(`${path}.severity`, "is neither error nor warning");
    for (const field of ["code", "message"]) text(diagnostic[field], `${path}.${field}`, at);
    site(diagnostic, path, at);
  });
  list(facts.effects, "facts.effects", at).forEach((e, i) => {
    const path = `facts.effects[${i}]`;
    const effect = record(e, path, at);
    text(effect.op, `${path}.op`, at);
    site(record(effect.site, `${path}.site`, at), `${path}.site`, at);
    record(effect.args, `${path}.args`, at);
    const count = record(effect.count, `${path}.count`, at);
    nonNegative(count.min, `${path}.count.min`, at);
    if (count.max !== null) nonNegative(count.max, `${path}.count.max`, at);
    if (effect.agentAction !== undefined) {
      const origin = record(effect.agentAction, `${path}.agentAction`, at);
      for (const field of ["op", "step"]) text(origin[field], `${path}.agentAction.${field}`, at);
    }
  });
  list(facts.guarantees, "facts.guarantees", at).forEach((g, i) => {
    const path = `facts.guarantees[${i}]`;
    const guarantee = record(g, path, at);
    if (!GUARANTEE_STATUSES.includes(guarantee.status)) at(`${path}.status`, "is not proven, refuted or enforced");
    for (const field of ["text", "why"]) text(guarantee[field], `${path}.${field}`, at);
    if (guarantee.site !== undefined) site(record(guarantee.site, `${path}.site`, at), `${path}.site`, at);
  });
  for (const [i, s] of list(facts.summary, "facts.summary", at).entries()) text(s, `facts.summary[${i}]`, at);
  text(facts.rationale, "facts.rationale", at);
  if (facts.agentManifests !== undefined) {
    const sha256 = record(facts.agentManifests, "facts.agentManifests", at).sha256;
    if (typeof sha256 !== "string" || !SHA256.test(sha256)) at("facts.agentManifests.sha256", "is not a sha256 in hex");
  }
  text(record(answer.decision, "decision", at).kind, "decision.kind", at);
  return answer as unknown as CheckResult;
}

/**
 * The answer checked with the full CheckResult schema as well (zod loads here), for the text
 * output, whose formatters read the abstract arguments and the verdicts; its errors as above.
 */
export async function readCheckAnswerFully(value: unknown, url: string): Promise<CheckResult> {
  const parsed = (await import("../model/api.js")).CheckResult.safeParse(readCheckAnswer(value, url));
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const path = issue.path
    .map((p) => (typeof p === "number" ? `[${p}]` : `.${String(p)}`))
    .join("")
    .replace(/^\./, "");
  return malformed(url, path, `is wrong: ${issue.message}`);
}

function malformed(url: string, path: string, problem: string): never {
  throw new CountersignError(
    "network_error",
    "authority",
    `the authority at ${url} answered /v1/check with a malformed answer: ${path} ${problem}`,
    { details: { path } },
  );
}

type At = (path: string, problem: string) => never;

const SHA256 = /^[0-9a-f]{64}$/;
const GUARANTEE_STATUSES: readonly unknown[] = ["proven", "refuted", "enforced"];

function record(value: unknown, path: string, at: At): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : at(path, "is not an object");
}

function list(value: unknown, path: string, at: At): unknown[] {
  return Array.isArray(value) ? value : at(path, "is not an array");
}

function text(value: unknown, path: string, at: At): void {
  if (typeof value !== "string") at(path, "is not a string");
}

function nonNegative(value: unknown, path: string, at: At): void {
  if (!Number.isSafeInteger(value) || (value as number) < 0) at(path, "is not a count");
}

function site(value: Record<string, unknown>, path: string, at: At): void {
  for (const field of ["line", "column"]) {
    const n = value[field];
    if (!Number.isSafeInteger(n) || (n as number) < 1) at(`${path}.${field}`, "is not a positive integer");
  }
}
