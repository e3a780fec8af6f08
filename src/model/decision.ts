import { z } from "zod";
import { CountRange } from "./abstract.js";
import { EffectConstraint, ValueConstraint } from "./constraint.js";
import { Site } from "./facts.js";

export const DecisionKind = z.enum([
  "auto_approved",
  "auto_rejected",
  "ask",
  "approved_once",
  "approved_remember",
  "rejected",
  "request_more",
  "expired",
]);
export type DecisionKind = z.infer<typeof DecisionKind>;

/** What the policy concluded about one effect, and why. */
export const EffectVerdict = z.object({
  op: z.string(),
  site: Site,
  rule: z.string().nullable(), // deciding rule id; null = the policy default or a built-in floor
  verdict: z.enum(["allow", "ask", "deny"]),
  why: z.string(),
});
export type EffectVerdict = z.infer<typeof EffectVerdict>;

/**
 * One permission a receipt carries: calls of `op` through the connector with this wasm hash,
 * each argument satisfying its constraint, at most `count.max` calls in the run
 * (null: no static bound was approved), `distinct` input values pairwise distinct across calls.
 * Built from the facts (see buildGrants), so that a run which leaves them is refused.
 */
export const Grant = z.object({
  op: z.string(),
  connector: z.object({ name: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/) }),
  args: z.record(z.string(), ValueConstraint),
  count: z.object({ max: z.number().int().nonnegative().nullable() }),
  distinct: z.string().optional(),
});
export type Grant = z.infer<typeof Grant>;

/**
 * A bound over several granted ops kept with one ledger (a guarantee such as atMostEmails(1) over
 * send_email and send_draft): at most `count.max` calls of these ops together, and the values of
 * the `distinct` input never repeated across their calls.
 */
export const CrossOpLimit = z.object({
  ops: z.array(z.string()).min(1),
  count: z.object({ max: z.number().int().nonnegative() }).optional(),
  distinct: z.string().optional(),
});
export type CrossOpLimit = z.infer<typeof CrossOpLimit>;

/** The output of decide(facts, policy): a kind, the reasoning per effect, guards and grants. */
export const PolicyDecision = z.object({
  kind: z.enum(["auto_approved", "auto_rejected", "ask"]),
  effects: z.array(EffectVerdict),
  guards: z.array(EffectConstraint), // checked by wrappers at run time
  grants: z.array(Grant),
  across: z.array(CrossOpLimit), // limits that span several grants
  policy: z.object({ sha256: z.string() }),
  reason: z.string(), // one line: why this kind
});
export type PolicyDecision = z.infer<typeof PolicyDecision>;

export { CountRange };
