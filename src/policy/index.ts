export {
  checkPolicySources,
  formatProblem,
  policyError,
  type PolicyOptions,
  type PolicySource,
} from "./check-policy.js";
export { decide } from "./decide.js";
export { explain, type EffectExplanation, type Explanation } from "./explain.js";
export { sourcesOf } from "./check-rule.js";
export { rememberRule, REMEMBERED_PREFIX, type Remembered } from "./remember-rule.js";
export { policyHash } from "./policy-hash.js";
export { PolicyFile, PolicyRule, RuleWhen, type LoadedRule, type Policy, type PolicyProblem } from "./schema.js";
export { formatDecision } from "./format-decision.js";
export { checkRuleAgainstManifests } from "./check-rules-against-manifests.js";
export { decideCall, type ConcreteCall } from "./decide-call.js";
export { policyBound, type BoundKey, type PolicyBound } from "./policy-bounds.js";
export { describeRuleWhen } from "./describe-rule.js";
export { askAdvice } from "./ask-advice.js";
export { handleOps } from "./handle-ops.js";
