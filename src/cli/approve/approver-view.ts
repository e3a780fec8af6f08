import { z } from "zod";
import { EffectConstraint, Facts, PolicyDecision, RecordedDecision, RequestStatus } from "../../model/index.js";

// What `GET /v1/requests/:id` and `GET /v1/requests` answer an approver (the authority's
// approverView), read back by the terminal approver. Not strict: fields the authority adds
// later are ignored here rather than refused.

const Iso = z.string().refine((s) => !Number.isNaN(Date.parse(s)), "must be an ISO date");

/** Per op, the allow rule "approve and remember" would save, or why none can be made. */
export const RememberPreview = z.union([
  z.object({ op: z.string(), rule: z.object({ id: z.string(), decision: z.string(), op: z.string(), when: EffectConstraint.omit({ op: true }).optional(), reason: z.string().optional() }) }),
  z.object({ op: z.string(), rule: z.null(), why: z.string() }),
]);
export type RememberPreview = z.infer<typeof RememberPreview>;

export const ApproverRequest = z.object({
  id: z.string(),
  status: RequestStatus,
  token: z.string(), // the submitter token (the agent) that sent it
  created_at: Iso,
  deadline_at: Iso,
  policy: PolicyDecision,
  decision: RecordedDecision.omit({ at: true }).extend({ at: Iso }).nullable(),
  rationale: z.string().nullable(), // the submitter's words beside the program's own
  source: z.string(),
  facts: Facts,
  remember: z.array(RememberPreview).optional(), // only on one request that waits for a person
});
export type ApproverRequest = z.infer<typeof ApproverRequest>;

export const ApproverList = z.object({ requests: z.array(ApproverRequest), cursor: z.string().optional() });
