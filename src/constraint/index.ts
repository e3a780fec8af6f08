// The one constraint language: run-time checks, the static three-valued check, and the
// reasoning the policy builds on.
export { satisfies } from "./satisfies.js";
export { textSha256 } from "./text-sha256.js";
export { matchOp } from "./match-op.js";
export { holds, holdsWithSources } from "./holds.js";
export { holdsEffect, type EffectCheck } from "./holds-effect.js";
export { satisfiesCall, distinctKey, distinctTokens, type Call } from "./satisfies-call.js";
export { canonicalJson, jsonEqual } from "./canonical-json.js";
export type { EffectOptions } from "./effect-options.js";
export { normalizePath } from "./normalize-path.js";
export { isPathUnder } from "./path-under.js";
export { urlHostPort } from "./url-host.js";
export { canonicalAbstract, canonicalForm, type InputFormat } from "./canonical-value.js";
export { canonicalUrl } from "./canonical-url.js";
export { implies } from "./implies.js";
export { narrow } from "./narrow.js";
export { describeConstraint, describeEffectConstraint } from "./describe.js";
export {
  describeArgument,
  describeCallCount,
  describeCount,
  describeInfluence,
  describeSources,
  describeValue,
  type SourceCalls,
} from "./describe-value.js";
export { and3, or3, not3 } from "./kleene.js";
export { constraintOf } from "./constraint-of.js";
export { absentInput } from "./effect-options.js";
export { isElementwise } from "./elementwise.js";
export { mentionsSources, sourceVerdict, withoutSources, type SourceCondition } from "./sources.js";
export { urlHost } from "./holds-host.js";
export { canonicalFieldPath, elementPath, fieldPath, pathCovers } from "./field-path.js";
export { mergeProvenance, provenanceKey, provenanceOf } from "./provenance-of.js";
export { isAddress, mailboxOf } from "./email-address.js";
