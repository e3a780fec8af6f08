import { mentionsSources } from "../constraint/index.js";
import type { ManifestSet } from "../manifest/index.js";
import type { AskAdvice, Facts } from "../model/index.js";
import type { RuleCheck } from "./check-rule.js";
import { canAutoPass, evaluate, type EffectEvaluation } from "./evaluate.js";
import type { Policy } from "./schema.js";

/**
 * What the agent is told about a program a person would be asked about (undefined for any other
 * decision): each asked call, the rule that asks and its reason, and whether a guarantee could let
 * it through. A guarantee only narrows argument values and call counts; it never changes where a
 * value came from or what steered the call, nor makes a rule without conditions stop applying.
 */
export function askAdvice(facts: Facts, policy: Policy, set: ManifestSet): AskAdvice | undefined {
  const evaluation = evaluate(facts, policy, set, true);
  if (evaluation.decision.kind !== "ask") return undefined;
  const asks = evaluation.effects
    .filter((e) => e.verdict.verdict === "ask")
    .map((e) => ({
      op: e.effect.op,
      line: e.effect.site.line,
      rule: e.verdict.rule,
      reason: policy.rules.find((r) => r.id === e.verdict.rule)?.reason ?? e.verdict.why,
      guarantee_could_help: guaranteeCouldHelp(e, set),
    }));
  return { asks };
}

/**
 * Every deny or ask rule that may apply could be ruled out by narrowing, and some allow rule that can pass the call
 * could be made sure.
 */
function guaranteeCouldHelp(e: EffectEvaluation, set: ManifestSet): boolean {
  const blockers = e.rules.filter((o) => o.rule.decision !== "allow" && o.holds !== "no");
  if (!blockers.every((o) => o.holds === "maybe" && o.parts.some((p) => p.holds === "maybe" && narrowable(p))))
    return false;
  return e.rules.some(
    (o) =>
      o.rule.decision === "allow" &&
      o.holds !== "no" &&
      canAutoPass(o.rule, e.effect.op, set) &&
      o.parts.every((p) => p.holds === "yes" || narrowable(p)),
  );
}

/**
 * A condition a guarantee can decide: on an argument's value (not its provenance), or on the calls' count or
 * distinctness.
 */
function narrowable(p: RuleCheck["parts"][number]): boolean {
  if (p.kind === "arg") return !mentionsSources(p.c);
  return p.kind === "count" || p.kind === "distinct";
}
