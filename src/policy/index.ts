export { checkPolicy, formatProblem, loadPolicy, type LoadPolicyOptions } from "./load-policy.js";
export { decide } from "./decide.js";
export { explain, type EffectExplanation, type Explanation } from "./explain.js";
export { rememberRule, type Remembered } from "./remember-rule.js";
export { policyHash } from "./policy-hash.js";
export { PolicyFile, PolicyRule, RuleWhen, type LoadedRule, type Policy, type PolicyProblem } from "./schema.js";
export { formatDecision } from "./format-decision.js";
export { PolicyTestFile, runPolicyTests, type PolicyCaseResult, type PolicyTestOptions } from "./run-policy-tests.js";
