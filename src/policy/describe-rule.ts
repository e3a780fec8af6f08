import { describeConstraint, describeEffectConstraint } from "../constraint/index.js";
import type { PolicyRule } from "./schema.js";

/**
 * When a rule applies, in plain words: its conditions on the call and on what steered it, or "any
 * call of OP". An allow rule's argument condition must hold for every value ("every to of ..."); a
 * deny or ask rule fires on a call with one value that meets it ("a call of OP whose path ...").
 */
export function describeRuleWhen(rule: PolicyRule): string {
  const { influenced_by, context, args, ...bounds } = rule.when ?? {};
  const steered = [
    ...(influenced_by === undefined ? [] : [`when what steered the call ${describeConstraint(influenced_by)}`]),
    ...(context === undefined
      ? []
      : [`when the agent ${context.untrusted ? "was" : "was not"} given untrusted data by its earlier runs`]),
  ];
  if (args === undefined && Object.keys(bounds).length === 0)
    return steered.length === 0 ? `any call of ${rule.op}` : [`a call of ${rule.op}`, ...steered].join(", ");
  if (args === undefined || rule.decision === "allow")
    return [
      describeEffectConstraint({ op: rule.op, ...(args === undefined ? {} : { args }), ...bounds }),
      ...steered,
    ].join(", ");
  const fires = `a call of ${rule.op} whose ${Object.entries(args)
    .map(([input, c]) => `${input} ${describeConstraint(c)}`)
    .join(" and whose ")}`;
  return [
    fires,
    ...(Object.keys(bounds).length === 0 ? [] : [describeEffectConstraint({ op: rule.op, ...bounds })]),
    ...steered,
  ].join(", ");
}
