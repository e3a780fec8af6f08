import { matchOp } from "../constraint/index.js";
import type { Effect, EffectConstraint, Facts } from "../model/index.js";
import type { ManifestSet } from "../manifest/index.js";
import { narrowEffect, typedEffect } from "./narrow-effect.js";

/** What the policy stage derives from a program's facts and the manifests alone, before any rule is read. */
export interface PreparedFacts {
  // proven guarantees hold on every run and enforced ones are checked at every call: both are known
  assumed: EffectConstraint[];
  enforced: EffectConstraint[]; // checked at every call: the decision's guards carry them
  effects: readonly Effect[]; // typed as a call that runs has them, narrowed by `assumed`
  assumedHere: readonly (readonly EffectConstraint[])[]; // per effect, those of `assumed` whose op matches its op
}

// Facts and manifest sets are never changed once built, and a repeated program's facts come from
// the analysis cache: this work is done once per facts object. Nothing here depends on a policy.
const prepared = new WeakMap<Facts, { set: ManifestSet; value: PreparedFacts }>();

/** The facts as the rules see them before any guard; worked out once per facts object and manifest set. */
export function preparedFacts(facts: Facts, set: ManifestSet): PreparedFacts {
  const kept = prepared.get(facts);
  if (kept?.set === set) return kept.value;
  const assumed = facts.guarantees.filter((g) => g.status !== "refuted").map((g) => g.source);
  const enforced = facts.guarantees.filter((g) => g.status === "enforced").map((g) => g.source);
  const effects = facts.effects.map((e) => narrowEffect(typedEffect(e, set), assumed));
  const value = {
    assumed,
    enforced,
    effects,
    assumedHere: effects.map((e) => assumed.filter((k) => matchOp(k.op, e.op))),
  };
  prepared.set(facts, { set, value });
  return value;
}
