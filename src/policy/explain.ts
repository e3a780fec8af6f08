import type { EffectConstraint, Verdict3 } from "../model/index.js";
import type { EffectVerdict, PolicyDecision } from "../model/index.js";
import type { Facts, Site } from "../model/index.js";
import type { ManifestSet } from "../manifest/index.js";
import { describeCount, describeInfluence, describeSources, describeValue } from "../constraint/index.js";
import { sourcesOf, whyOf } from "./check-rule.js";
import { evaluate } from "./evaluate.js";
import type { Policy } from "./schema.js";

export interface EffectExplanation {
  op: string;
  site: Site;
  args: Record<string, string>; // what is known about each argument, guarantees and guards applied
  sources: Record<string, string>; // where each argument comes from, as the analysis found it
  influencedBy: string; // what the program branched, looped or chose on before the call, and what that may change
  count: string;
  rules: { id: string; decision: string; op: string; holds: Verdict3; why: string }[]; // every rule whose op matches
  guards: EffectConstraint[];
  verdict: EffectVerdict;
}

export interface Explanation {
  policy: { sha256: string; files: string[]; default: Policy["default"] };
  refused: string | null;
  effects: EffectExplanation[];
  decision: PolicyDecision;
}

/** The full reasoning of decide, per effect: every rule that matched yes, maybe or no, and why. */
export function explain(facts: Facts, policy: Policy, set: ManifestSet): Explanation {
  const evaluation = evaluate(facts, policy, set, true);
  return {
    policy: { sha256: policy.sha256, files: policy.files, default: policy.default },
    refused: evaluation.refused,
    effects: evaluation.effects.map((e) => ({
      op: e.effect.op,
      site: e.effect.site,
      args: Object.fromEntries(Object.entries(e.known.args).map(([name, v]) => [name, describeValue(v)])),
      sources: Object.fromEntries(
        Object.keys(e.known.args).map((name) => [
          name,
          describeSources(sourcesOf(e.effect, name), "the program's own values", facts.effects),
        ]),
      ),
      influencedBy: describeInfluence(e.effect.influencedBy, facts.effects) ?? "nothing",
      count: describeCount(e.known.count),
      rules: e.rules.map((o) => ({
        id: o.rule.id,
        decision: o.rule.decision,
        op: o.rule.op,
        holds: o.holds,
        why: whyOf(o.rule, o),
      })),
      guards: e.guards,
      verdict: e.verdict,
    })),
    decision: evaluation.decision,
  };
}
