import { describeConstraint, describeEffectConstraint } from "../constraint/index.js";
import type { PolicyRule } from "./schema.js";

/** When a rule applies, in plain words: its conditions on the call and on what steered it, or "any call of OP". */
export function describeRuleWhen(rule: PolicyRule): string {
  const { influenced_by, ...call } = rule.when ?? {};
  const effect = describeEffectConstraint({ op: rule.op, ...call });
  return influenced_by === undefined ? effect : `${Object.keys(call).length === 0 ? `a call of ${rule.op}` : effect}, when what steered the call ${describeConstraint(influenced_by)}`;
}
