import { canonicalJson, describeEffectConstraint, matchOp, withoutSources } from "../constraint/index.js";
import type { EffectConstraint } from "../model/index.js";
import type { EffectVerdict, PolicyDecision } from "../model/index.js";
import type { Effect, Facts } from "../model/index.js";
import type { ManifestSet } from "../manifest/index.js";
import { buildGrants } from "./build-grants.js";
import { argSources, checkRule, whyOf, type RuleCheck, type RuleContext, type RuleOutcome } from "./check-rule.js";
import { manifestView } from "./manifest-view.js";
import { narrowEffect } from "./narrow-effect.js";
import { negation } from "./negation.js";
import { preparedFacts } from "./prepared-facts.js";
import { withTrustedSources } from "./trust-sources.js";
import type { LoadedRule, Policy } from "./schema.js";
import { ruleArgs } from "./widen-addresses.js";

/** The full reasoning about one effect: what is known, every matching rule, the verdict. */
export interface EffectEvaluation {
  effect: Effect; // as the analysis found it
  known: Effect; // narrowed by guarantees and guards
  rules: RuleOutcome[]; // the rules checked (all whose op matches, when complete), in policy order
  guards: EffectConstraint[]; // run-time guards this effect's maybe-deny rules produced
  verdict: EffectVerdict;
}

export interface Evaluation {
  refused: string | null; // why the program was refused before any rule was read
  effects: EffectEvaluation[];
  decision: PolicyDecision;
}

/**
 * The policy stage (docs/architecture.md section 7), shared by decide and explain. Pure: facts, policy and
 * manifests in, reasoning out. `complete` checks every rule whose op matches (explain); without
 * it only the rules that can change the verdict are checked (decide), with the same decision.
 */
export function evaluate(analyzed: Facts, policy: Policy, set: ManifestSet, complete: boolean): Evaluation {
  const facts = withTrustedSources(analyzed, policy); // the user's [[trusted]] entries, before any rule is read
  const refused = refusal(facts);
  if (refused !== null) {
    const effects = facts.effects.map((effect) => ({
      effect,
      known: effect,
      rules: [],
      guards: [],
      verdict: {
        op: effect.op,
        site: effect.site,
        rule: null,
        verdict: "deny" as const,
        why: `the program was refused: ${refused}`,
      },
    }));
    const decision = {
      kind: "auto_rejected" as const,
      effects: effects.map((e) => e.verdict),
      guards: [],
      grants: [],
      across: [],
      policy: { sha256: policy.sha256 },
      reason: `the program was refused: ${refused}`,
    };
    return { refused, effects, decision };
  }

  const { assumed, enforced, effects: first, assumedHere } = preparedFacts(facts, set);
  const { options, listInputs, resolved } = manifestView(set);

  // Pass 1: deny rules, against what the guarantees make known. A maybe becomes a guard.
  // Outcomes are kept per effect in the order of the op's rules, undefined for a rule not checked.
  const denies = first.map((effect, i) => {
    const context = {
      effects: first,
      known: assumed,
      knownHere: assumedHere[i]!,
      listInputs: listInputs(effect.op),
      resolved: resolved(effect.op),
      options,
      given: facts.context,
    };
    return rulesOf(policy, effect.op).map((rule) =>
      rule.decision === "deny" ? checkRule(rule, effect, context) : undefined,
    );
  });
  const ownGuards = first.map((effect, i) => {
    const maybe = denies[i]!.filter((o) => o !== undefined).filter((o) => o.holds === "maybe");
    return maybe.length === 0 ? [] : dedupe(maybe.map((o) => negate(o.rule, o, effect)));
  });
  const guards = dedupe(ownGuards.flat());

  // Pass 2: ask and allow rules, knowing that the guards hold too. Unless the full reasoning is
  // wanted, stop as soon as the verdict is settled: a deny that may apply, the first ask that
  // may apply, the first allow that can auto-pass the effect.
  const known = [...assumed, ...guards];
  const second = guards.length === 0 ? first : first.map((e) => narrowEffect(e, guards));
  const effects = second.map((effect, i): EffectEvaluation => {
    const knownHere = guards.length === 0 ? assumedHere[i]! : known.filter((k) => matchOp(k.op, effect.op));
    const context = {
      effects: second,
      known,
      knownHere,
      listInputs: listInputs(effect.op),
      resolved: resolved(effect.op),
      options,
      given: facts.context,
    };
    const all = rulesOf(policy, effect.op);
    const outcomes = denies[i]!;
    if (complete) checkAll(all, outcomes, effect, context);
    else checkUntilSettled(all, outcomes, effect, context, set);
    const rules = outcomes.filter((o) => o !== undefined);
    const guardsHere = ownGuards[i]!;
    return {
      effect: facts.effects[i]!,
      known: effect,
      rules,
      guards: guardsHere,
      verdict: verdictFor(facts.effects[i]!, rules, guardsHere, policy, set),
    };
  });

  const verdicts = effects.map((e) => e.verdict);
  const denied = verdicts.find((v) => v.verdict === "deny");
  const kind =
    denied !== undefined ? "auto_rejected" : verdicts.every((v) => v.verdict === "allow") ? "auto_approved" : "ask";
  const { grants, across } =
    kind === "auto_rejected"
      ? { grants: [], across: [] }
      : buildGrants(second, [...known, ...allowBounds(effects)], set);
  const decision: PolicyDecision = {
    kind,
    effects: verdicts,
    guards: kind === "auto_rejected" ? [] : dedupe([...enforced, ...guards]),
    grants,
    across,
    policy: { sha256: policy.sha256 },
    reason: reasonFor(kind, verdicts),
  };
  return { refused: null, effects, decision };
}

/**
 * The call bounds of the allow rules that passed an effect: the rule held for the facts, but a
 * grant is a union over call sites and does not keep `distinct` by itself, so the receipt must.
 * Its conditions on resolved inputs, which held only because the wrapper checks the value read at
 * run time against the grant (checkRule's `enforced`), go into the grant of the effect's op.
 */
function allowBounds(effects: readonly EffectEvaluation[]): EffectConstraint[] {
  const bounds: EffectConstraint[] = [];
  for (const e of effects) {
    const outcome = e.verdict.verdict === "allow" ? e.rules.find((o) => o.rule.id === e.verdict.rule) : undefined;
    if (outcome === undefined) continue;
    const { count, distinct } = outcome.rule.when ?? {};
    const args = ruleArgs(outcome.rule);
    if (count !== undefined || distinct !== undefined) {
      bounds.push({
        op: outcome.rule.op,
        ...(count === undefined ? {} : { count }),
        ...(distinct === undefined ? {} : { distinct }),
      });
    }
    if (outcome.enforced.length > 0)
      bounds.push({ op: e.effect.op, args: Object.fromEntries(outcome.enforced.map((name) => [name, args[name]!])) });
  }
  return dedupe(bounds);
}

function refusal(facts: Facts): string | null {
  const refuted = facts.guarantees.find((g) => g.status === "refuted");
  if (refuted !== undefined) {
    const at = refuted.site === undefined ? "" : ` at line ${refuted.site.line}`;
    return `it breaks its own guarantee ${refuted.text}${at}: ${refuted.why}`;
  }
  const error = facts.diagnostics.find((d) => d.severity === "error");
  if (error !== undefined) return `${error.line}:${error.column}: ${error.message}`;
  return facts.ok ? null : "the analysis refused it";
}

/**
 * The guard that keeps a maybe-deny rule from ever firing: every undecided argument condition
 * negated (one per argument, as a constraint checks one argument). With several undecided
 * arguments this asks for more than "not all of them" — it may refuse a call the rule would have
 * let through, never the reverse.
 */
function negate(rule: LoadedRule, outcome: RuleCheck, effect: Effect): EffectConstraint {
  const args = ruleArgs(rule);
  // A run cannot check provenance: the guard refuses at least whatever the rule could deny.
  const checkable = (name: string) => withoutSources(args[name]!, argSources(outcome, name));
  return {
    op: effect.op,
    args: Object.fromEntries(outcome.undecided.map((name) => [name, negation(checkable(name))])),
  };
}

/** Every rule not checked yet, for the full reasoning. */
function checkAll(
  all: readonly LoadedRule[],
  outcomes: (RuleOutcome | undefined)[],
  effect: Effect,
  context: RuleContext,
): void {
  for (let k = 0; k < all.length; k++) outcomes[k] ??= checkRule(all[k]!, effect, context);
}

/**
 * Only the rules that can change the verdict, in policy order: none once a deny may apply; else
 * the ask rules up to the first that may apply; else the allow rules up to the first that can
 * auto-pass the effect.
 */
function checkUntilSettled(
  all: readonly LoadedRule[],
  outcomes: (RuleOutcome | undefined)[],
  effect: Effect,
  context: RuleContext,
  set: ManifestSet,
): void {
  if (outcomes.some((o) => o !== undefined && o.holds !== "no")) return;
  for (let k = 0; k < all.length; k++) {
    const rule = all[k]!;
    if (rule.decision === "ask" && (outcomes[k] = checkRule(rule, effect, context)).holds !== "no") return;
  }
  for (let k = 0; k < all.length; k++) {
    const rule = all[k]!;
    if (
      rule.decision === "allow" &&
      (outcomes[k] = checkRule(rule, effect, context)).holds === "yes" &&
      canAutoPass(rule, effect.op, set)
    )
      return;
  }
}

// A loaded policy never changes: each op's rules (in policy order) are matched once per policy.
const rulesByOp = new WeakMap<Policy, Map<string, LoadedRule[]>>();

function rulesOf(policy: Policy, op: string): LoadedRule[] {
  let byOp = rulesByOp.get(policy);
  if (byOp === undefined) rulesByOp.set(policy, (byOp = new Map()));
  let rules = byOp.get(op);
  if (rules === undefined) byOp.set(op, (rules = policy.rules.filter((r) => matchOp(r.op, op))));
  return rules;
}

/** Consequential actions (manifest `[approval] required`): only a rule naming the op exactly lifts the floor. */
export function canAutoPass(rule: LoadedRule, op: string, set: ManifestSet): boolean {
  const consequential = set.actions.get(op)?.manifest.approval.required ?? true;
  return !consequential || rule.op === op;
}

function verdictFor(
  effect: Effect,
  rules: RuleOutcome[],
  guards: EffectConstraint[],
  policy: Policy,
  set: ManifestSet,
): EffectVerdict {
  const deny = rules.find((o) => o.rule.decision === "deny" && o.holds === "yes");
  if (deny !== undefined) return verdictOf(effect, deny.rule.id, "deny", ruleWhy(deny));
  const maybeDeny = rules.find((o) => o.rule.decision === "deny" && o.holds === "maybe");
  if (maybeDeny !== undefined) {
    const held = guards.map(describeEffectConstraint).join("; ");
    return verdictOf(
      effect,
      maybeDeny.rule.id,
      "ask",
      `${ruleWhy(maybeDeny)}; it may apply, so a person decides and every call is held to: ${held}`,
    );
  }
  // An ask rule that may apply must be asked now: a person cannot be asked at run time.
  const ask = rules.find((o) => o.rule.decision === "ask" && o.holds !== "no");
  if (ask !== undefined) return verdictOf(effect, ask.rule.id, "ask", ruleWhy(ask));
  const allows = rules.filter((o) => o.rule.decision === "allow" && o.holds === "yes");
  const allow = allows.find((o) => canAutoPass(o.rule, effect.op, set));
  if (allow !== undefined) return verdictOf(effect, allow.rule.id, "allow", ruleWhy(allow));
  const glob = allows[0];
  if (glob !== undefined) {
    return verdictOf(
      effect,
      null,
      "ask",
      `${ruleWhy(glob)}; but ${effect.op} requires approval (its manifest), and only a rule naming ${effect.op} exactly can auto-pass it`,
    );
  }
  const unproven = rules
    .filter((o) => o.rule.decision === "allow" && o.holds === "maybe")
    .map((o) => ` (not proven: ${ruleWhy(o)})`)
    .join("");
  return verdictOf(
    effect,
    null,
    policy.default,
    `no rule covers it; the policy default is ${policy.default}${unproven}`,
  );
}

function verdictOf(effect: Effect, rule: string | null, verdict: EffectVerdict["verdict"], why: string): EffectVerdict {
  return { op: effect.op, site: effect.site, rule, verdict, why };
}

function ruleWhy(o: RuleOutcome): string {
  return `${o.rule.decision} rule "${o.rule.id}"${o.rule.reason === undefined ? "" : ` (${o.rule.reason})`}: ${whyOf(o.rule, o)}`;
}

function reasonFor(kind: PolicyDecision["kind"], verdicts: EffectVerdict[]): string {
  const line = (v: EffectVerdict) =>
    `${v.op} at line ${v.site.line}: ${v.rule === null ? "" : `rule "${v.rule}", `}${v.why}`;
  if (kind === "auto_rejected") return `denied — ${line(verdicts.find((v) => v.verdict === "deny")!)}`;
  if (kind === "auto_approved")
    return verdicts.length === 0 ? "the program has no effects" : "every effect is allowed by the policy";
  const asks = verdicts.filter((v) => v.verdict === "ask");
  return `${asks.length} of ${verdicts.length} effects need a person — ${line(asks[0]!)}`;
}

function dedupe(constraints: EffectConstraint[]): EffectConstraint[] {
  if (constraints.length <= 1) return constraints;
  return [...new Map(constraints.map((c) => [canonicalJson(c), c])).values()];
}
