import { z } from "zod";
import { PolicyDecision } from "./decision.js";

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);

/** What a person decided about a request the policy asked about. */
export const HumanDecision = z.discriminatedUnion("kind", [
  z.object({ kind: z.enum(["approved_once", "approved_remember"]), approver: z.string().min(1) }).strict(),
  z.object({ kind: z.literal("rejected"), approver: z.string().min(1), reason: z.string().trim().min(1, "a rejection needs a reason") }).strict(),
  z.object({ kind: z.literal("request_more"), approver: z.string().min(1), feedback: z.string().trim().min(1, "request_more needs feedback for the agent") }).strict(),
]);
export type HumanDecision = z.infer<typeof HumanDecision>;

/**
 * One submitted program and what became of it: the policy's decision, and once a person decided
 * (when the policy asked), that decision with when it was made.
 */
export const ApprovalRequest = z
  .object({
    id: z.string().min(1),
    created: z.iso.datetime(),
    program: z.object({ sha256: sha256Hex, entry: z.string().min(1) }).strict(),
    source: z.string(),
    rationale: z.string(), // the agent's words, shown as such
    decision: PolicyDecision,
    human: HumanDecision.and(z.object({ decided: z.iso.datetime() })).optional(),
  })
  .strict();
export type ApprovalRequest = z.infer<typeof ApprovalRequest>;

/** Where requests are kept: in memory for a local run today, the authority's database tomorrow. */
export interface RequestStore {
  save(request: ApprovalRequest): Promise<void>;
  get(id: string): Promise<ApprovalRequest | undefined>;
}
