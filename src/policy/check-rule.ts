import {
  absentInput,
  describeConstraint,
  describeSources,
  type EffectOptions,
  holdsEffect,
  holdsWithSources,
  implies,
  matchOp,
  mentionsSources,
  not3,
  provenanceOf,
} from "../constraint/index.js";
import type { AbstractValue, CountRange, GivenContext, Provenance } from "../model/index.js";
import type { EffectConstraint, ValueConstraint, Verdict3 } from "../model/index.js";
import type { Effect } from "../model/index.js";
import { describeCallCount, describeValue } from "../constraint/index.js";
import { knownFor } from "./known-for.js";
import { totalCount } from "./narrow-effect.js";
import { negation } from "./negation.js";
import type { LoadedRule, PolicyRule } from "./schema.js";
import { ruleArgs } from "./widen-addresses.js";

export interface RuleCheck {
  holds: Verdict3;
  parts: Part[]; // one per condition, for whyOf
  undecided: string[]; // the argument names whose condition is maybe
  enforced: string[]; // the resolved inputs whose condition holds only because the grant carries it (allow rules)
}

/** How one rule whose op matches an effect fared against it. */
export interface RuleOutcome extends RuleCheck {
  rule: LoadedRule;
}

export interface RuleContext {
  effects: readonly Effect[]; // every effect of the program, narrowed like `effect`
  known: readonly EffectConstraint[]; // what holds at run time
  knownHere: readonly EffectConstraint[]; // those of them whose op matches the effect's
  listInputs: ReadonlySet<string>; // inputs of the effect's action whose type is array
  // inputs the wrapper reads before each call ([resolve]), as the rules see them
  resolved: ReadonlyMap<string, AbstractValue>;
  options: EffectOptions; // what the manifests say about every op's inputs
  // what the submitting agent had been given (facts.context); undefined: nothing read, nothing given
  given: GivenContext | undefined;
}

/** One condition's verdict, with what `whyOf` needs to say why (strings are built only when shown). */
type Part =
  | {
      kind: "arg";
      name: string;
      c: ValueConstraint;
      value: AbstractValue | undefined;
      sources: Provenance[];
      any: boolean;
      premise?: ValueConstraint;
      enforced?: true;
      holds: Verdict3;
    }
  | { kind: "influence"; c: ValueConstraint; sources: Provenance[]; holds: Verdict3 }
  | { kind: "context"; untrusted: boolean; given: GivenContext | undefined; holds: Verdict3 }
  | { kind: "count"; op: string; max: number; range: CountRange; holds: Verdict3 }
  | { kind: "distinct"; input: string; holds: Verdict3; why: string };

/**
 * Does `rule` (whose op matches) apply to `effect`? Three-valued, conditions joined by "and".
 * An allow rule needs every element of a list input to match (the constraint language's
 * reading); a deny or ask rule fires when any element matches — "deny mail to *@rival.com" and
 * "ask before mail to the CFO" must catch a list that holds one such address among others. `count` and `distinct` look
 * at all effects
 * the rule's op matches, since a bound on calls is a bound on the total.
 *
 * An input the call does not show but the trusted wrapper reads before each call (`[resolve]`,
 * the recipients of the draft email.send_draft sends) is a value read at run time: unknown, and
 * possibly a list. The wrapper checks it against the receipt's grant, which carries the known
 * constraints and the deciding allow rule's condition on it (buildGrants, allowBounds); so an
 * allow rule's condition on it that the run can check (no provenance condition) holds, enforced
 * at run time. Deny and ask rules get no such help: a person cannot be asked at run time.
 */
export function checkRule(rule: LoadedRule, effect: Effect, context: RuleContext): RuleOutcome {
  const parts: Part[] = [];
  for (const [name, c] of Object.entries(ruleArgs(rule))) {
    const passed = Object.hasOwn(effect.args, name);
    const resolved = passed ? undefined : context.resolved.get(name);
    const any = rule.decision !== "allow" && (context.listInputs.has(name) || resolved !== undefined);
    const value = passed ? effect.args[name] : resolved;
    const part = argHolds(
      name,
      c,
      value,
      passed ? sourcesOf(effect, name) : resolved === undefined ? [] : provenanceOf(resolved),
      any,
      knownFor(name, context.knownHere),
    );
    const carried =
      resolved !== undefined && rule.decision === "allow" && part.holds === "maybe" && !mentionsSources(c);
    parts.push(carried ? { ...part, enforced: true, holds: "yes" } : part);
  }
  const influence = rule.when?.influenced_by;
  if (influence !== undefined) {
    const sources = effect.influencedBy ?? UNKNOWN_INFLUENCE;
    parts.push({ kind: "influence", c: influence, sources, holds: holdsWithSources(influence, ANY_STRING, sources) });
  }
  const asked = rule.when?.context;
  if (asked !== undefined) {
    const given = context.given?.untrusted ?? false;
    parts.push({
      kind: "context",
      untrusted: asked.untrusted,
      given: context.given,
      holds: given === asked.untrusted ? "yes" : "no",
    });
  }
  const max = rule.when?.count?.max;
  if (max !== undefined) {
    const range = totalCount(context.effects, rule.op, context.known);
    parts.push({
      kind: "count",
      op: rule.op,
      max,
      range,
      holds: range.max !== null && range.max <= max ? "yes" : range.min > max ? "no" : "maybe",
    });
  }
  const distinct = rule.when?.distinct;
  if (distinct !== undefined) parts.push(distinctHolds(rule, distinct, context));
  // The conditions joined by Kleene's "and"; the argument conditions that stay open.
  let verdict: Verdict3 = "yes";
  const undecided: string[] = [];
  const enforced: string[] = [];
  for (const p of parts) {
    if (p.kind === "arg" && p.enforced === true) enforced.push(p.name);
    if (p.holds === "no") verdict = "no";
    else if (p.holds === "maybe") {
      if (verdict === "yes") verdict = "maybe";
      if (p.kind === "arg") undecided.push(p.name);
    }
  }
  return { rule, holds: verdict, parts, undecided, enforced };
}

/** Why a rule check came out as it did, one clause per condition. */
export function whyOf(rule: PolicyRule, check: RuleCheck): string {
  if (check.parts.length === 0) return `every ${rule.op} call`;
  return check.parts.map(describePart).join("; ");
}

function describePart(p: Part): string {
  if (p.kind === "context") {
    const what =
      p.given?.untrusted === true
        ? `it was given untrusted data (from ${p.given.from.join(", ") || "an earlier run"}) by ${p.given.requests.join(", ")}`
        : "it was given no untrusted data";
    return `the agent ${p.untrusted ? "was" : "was not"} given untrusted data by its earlier runs: ${p.holds} (${what})`;
  }
  if (p.kind === "influence")
    return `influenced by data that ${describeConstraint(p.c)}: ${p.holds} (influenced by ${describeSources(p.sources, "nothing")})`;
  if (p.kind === "count")
    return `at most ${p.max} call${p.max === 1 ? "" : "s"} of ${p.op}: ${p.holds} (${describeCallCount(p.range)})`;
  if (p.kind === "distinct") return `distinct ${p.input}: ${p.holds} (${p.why})`;
  const label = `${p.any ? "some " : ""}${p.name} ${describeConstraint(p.c)}`;
  if (p.value === undefined) return `${label}: maybe (not passed)`;
  if (p.enforced === true)
    return `${label}: enforced at run time (${describeValue(p.value)}, read by the trusted wrapper before each call and checked against the receipt's grant, which carries this condition)`;
  const given = p.premise === undefined ? "" : `, and every call must satisfy ${describeConstraint(p.premise)}`;
  const from = mentionsSources(p.c) ? `, comes from ${describeSources(p.sources, "the program's own values")}` : "";
  return `${label}: ${p.holds} (${describeValue(p.value)}${from}${given})`;
}

/** The sources an argument condition of a rule check was decided with (a resolved input's: the wrapper's read). */
export function argSources(check: RuleCheck, name: string): Provenance[] {
  for (const p of check.parts) if (p.kind === "arg" && p.name === name) return p.sources;
  return [];
}

/** An argument's sources as the analysis found them (narrowing by a guarantee does not make data trusted). */
export function sourcesOf(effect: Effect, name: string): Provenance[] {
  const value = effect.args[name];
  return effect.sources?.[name] ?? (value === undefined ? [] : provenanceOf(value));
}

// An effect the analyzer did not describe: its control may depend on anything.
const UNKNOWN_INFLUENCE: Provenance[] = [{ source: "an effect without the analysis's influence", untrusted: true }];
// What an influence condition is checked on: the sources are passed apart, the value does not matter.
const ANY_STRING: AbstractValue = { kind: "string", prefix: "", suffix: "", provenance: [] };

/**
 * One argument condition: the static check on what is known of the value, and failing that, a
 * proof from the constraints known to hold at every call (guarantees, guards) — `narrow` cannot
 * put "under /dir" into a string's shape, but `implies` can reason about it.
 */
function argHolds(
  name: string,
  c: ValueConstraint,
  value: AbstractValue | undefined,
  sources: Provenance[],
  any: boolean,
  known: ValueConstraint[],
): Extract<Part, { kind: "arg" }> {
  if (value === undefined) return { kind: "arg", name, c, value, sources, any, holds: "maybe" };
  // Some element matches exactly when not every element fails to.
  const verdict = any ? not3(holdsWithSources({ not: c }, value, sources)) : holdsWithSources(c, value, sources);
  const premise: ValueConstraint | undefined = known.length <= 1 ? known[0] : { all: known };
  if (verdict === "maybe" && premise !== undefined) {
    if (!any && implies(premise, c)) return { kind: "arg", name, c, value, sources, any, premise, holds: "yes" };
    if (implies(premise, any ? { not: c } : negation(c)))
      return { kind: "arg", name, c, value, sources, any, premise, holds: "no" };
  }
  return { kind: "arg", name, c, value, sources, any, holds: verdict };
}

/**
 * `distinct` over the calls the rule's op matches. The values the wrapper reads before a call
 * (`[resolve]`) are held to it at run time by the receipt, which carries the bound of the allow
 * rule that decides (allowBounds, one ledger over all the op's calls): for an allow rule only the
 * calls that pass the input must be proven distinct.
 */
function distinctHolds(rule: LoadedRule, input: string, context: RuleContext): Part {
  const { op } = rule;
  const members = context.effects.filter((e) => matchOp(op, e.op));
  const promised = context.known.some((k) => k.distinct === input && members.every((e) => matchOp(k.op, e.op)));
  if (promised) return { kind: "distinct", input, holds: "yes", why: "guaranteed by the program" };
  const result = holdsEffect({ op, distinct: input }, members, context.options);
  const read = members.filter(
    (e) => absentInput(e.op, input, context.options) === "resolved" && !Object.hasOwn(e.args, input),
  );
  if (result.verdict !== "maybe" || rule.decision !== "allow" || read.length === 0)
    return { kind: "distinct", input, holds: result.verdict, why: result.why };
  const rest = members.filter((e) => !read.includes(e));
  const passed = holdsEffect({ op, distinct: input }, rest, context.options);
  if (passed.verdict !== "yes") return { kind: "distinct", input, holds: result.verdict, why: result.why };
  const atRunTime = `the ${input} read before each ${[...new Set(read.map((e) => e.op))].join(", ")} call is held to it at run time by the receipt`;
  return { kind: "distinct", input, holds: "yes", why: rest.length === 0 ? atRunTime : `${passed.why}; ${atRunTime}` };
}
