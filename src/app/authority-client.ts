import { z } from "zod";
import { type AuthorityContext, type CheckResult, PolicyDecision, RequestStatus } from "../model/index.js";
import type { CheckBody, HandleView, Jwks, RunOutput, ShownOutput, SubmitBody } from "../model/index.js";

/** `POST /v1/requests` as the submitter reads it: decided at once (with a receipt when approved), or pending. */
export const SubmitAnswer = z.discriminatedUnion("status", [
  z.object({ id: z.string(), status: z.literal("approved"), decision: PolicyDecision, receipt: z.string() }),
  z.object({ id: z.string(), status: z.literal("rejected"), decision: PolicyDecision }),
  z.object({ id: z.string(), status: z.literal("pending"), review_url: z.string() }),
]);
export type SubmitAnswer = z.infer<typeof SubmitAnswer>;

/** The policy's verdict as the submitter may see it (no guards or grants). */
export const PolicyView = PolicyDecision.pick({ kind: true, reason: true, effects: true });
export type PolicyView = z.infer<typeof PolicyView>;

/** `GET /v1/requests/:id/decision` as the submitter reads it: the receipt comes once approved. */
export const DecisionAnswer = z.object({
  id: z.string(),
  status: RequestStatus,
  decision: z.object({ kind: z.string(), reason: z.string().nullable(), feedback: z.string().nullable() }).nullable(),
  policy: PolicyView,
  receipt: z.string().optional(),
});
export type DecisionAnswer = z.infer<typeof DecisionAnswer>;

/**
 * `GET /v1/requests/:id` as its submitter reads it: status, the policy's verdict, the decision's
 * reason or feedback. No receipt (reading it signs none), nothing only the approver sees.
 */
export const RequestView = z.object({
  id: z.string(),
  status: RequestStatus,
  program: z.object({ sha256: z.string(), entry: z.string() }),
  agent_manifests: z.object({ sha256: z.string() }).nullable().optional(), // absent from an older authority
  created_at: z.string(),
  deadline_at: z.string(),
  policy: PolicyView,
  decision: z
    .object({ kind: z.string(), reason: z.string().nullable(), feedback: z.string().nullable(), at: z.string() })
    .nullable(),
});
export type RequestView = z.infer<typeof RequestView>;

/**
 * The authority as a runner sees it, with a submitter token. The CLI and the MCP server hand in
 * an HTTP client; tests may hand in anything that answers the same. Every method throws the
 * authority's error as a CountersignError; `signal` aborts a call that waits.
 */
export interface AuthorityClient {
  /** Where it answers, for messages. */
  readonly url: string;
  check(program: CheckBody, signal?: AbortSignal): Promise<CheckResult>;
  submit(body: SubmitBody, signal?: AbortSignal): Promise<SubmitAnswer>;
  /** Wait up to `waitSeconds` (at most 60) for the request to leave `pending`. */
  decision(id: string, waitSeconds: number, signal?: AbortSignal): Promise<DecisionAnswer>;
  /** Read a request as it is now, without waiting and without a receipt. */
  request(id: string, signal?: AbortSignal): Promise<RequestView>;
  withdraw(id: string): Promise<void>;
  /**
   * Hand the authority what a run of the request produced, before the agent sees it; answers what the agent may see.
   * Once per request.
   */
  output(id: string, output: RunOutput): Promise<ShownOutput>;
  /** Redeem a receipt, once: a second redemption throws receipt_invalid (replayed). */
  redeem(jti: string, exp: number): Promise<void>;
  jwks(): Promise<Jwks>;
  /** What the authority tells this submitter of its world (`GET /v1/context`). */
  context(signal?: AbortSignal): Promise<AuthorityContext>;
  /**
   * A value held back from an earlier run of this submitter (`GET /v1/handles/:id`); not_found when not this
   * submitter's or expired.
   */
  handle(id: string, signal?: AbortSignal): Promise<HandleView>;
}
