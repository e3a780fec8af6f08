import { z } from "zod";
import {
  ApprovalKind,
  DecisionKind,
  Diagnostic,
  ErrorBody,
  ErrorClass,
  Json,
  ResultPart,
  Site,
} from "../model/index.js";

/**
 * How a run ended, one value per exit code of `countersign run` (docs/architecture.md section 12):
 * executed 0, refused 1 (by the analysis), unavailable 2 (no authority, a configuration error),
 * invalid 2 (a request that cannot be resumed: unknown, another program's, or run already),
 * denied 3, request_more 4, expired 5 (the request or the receipt ran out of time, or the request
 * was withdrawn), failed 6 (a call refused, a connector error, a sandbox limit, a receipt that
 * does not hold), pending 7 (a person has not decided yet: the request waits, to be resumed),
 * cancelled (the caller gave up: Ctrl-C).
 */
export const RunOutcome = z.enum([
  "executed",
  "refused",
  "unavailable",
  "invalid",
  "denied",
  "request_more",
  "expired",
  "failed",
  "pending",
  "cancelled",
]);
export type RunOutcome = z.infer<typeof RunOutcome>;

/** What the local check found: counts for the summary line, diagnostics when refused. */
export const CheckSummary = z.object({
  ok: z.boolean(),
  effects: z.number().int().nonnegative(),
  guarantees: z.number().int().nonnegative(),
  proven: z.number().int().nonnegative(),
  enforced: z.number().int().nonnegative(),
  diagnostics: z.array(Diagnostic),
  refuted: z.array(z.object({ text: z.string(), why: z.string(), site: Site.optional() })), // guarantees the program breaks
  summary: z.array(z.string()),
});
export type CheckSummary = z.infer<typeof CheckSummary>;

/** One trusted call of the run, in order. */
export const RunCall = z.object({
  op: z.string(),
  status: z.enum(["pending", "done", "refused", "failed"]),
  error: z.object({ class: ErrorClass, message: z.string() }).optional(),
});

/**
 * Why what main returned is not in the report: larger than the run's cap (`bytes` its size as
 * JSON, `limit` the cap), not plain data (`path` the part, `why` what it is), or not recorded by
 * the authority (`why`; the logs and the error's message are withheld too). The run's
 * outcome and exit code stay as they were: its effects happened.
 */
export const ValueDropped = z.discriminatedUnion("reason", [
  z.object({ reason: z.literal("too_large"), bytes: z.number().int().positive(), limit: z.number().int().positive() }),
  z.object({ reason: z.literal("not_plain_data"), path: z.string(), why: z.string() }),
  z.object({ reason: z.literal("not_recorded"), why: z.string() }), // the authority did not record the output: nothing of it is shown
]);
export type ValueDropped = z.infer<typeof ValueDropped>;

/** What the sandbox reported. */
export const Execution = z.object({
  outcome: z.enum(["returned", "threw", "limit"]),
  value: Json, // what main resolved to (null unless plain data within the cap)
  value_dropped: ValueDropped.optional(),
  value_provenance: z.array(ResultPart).optional(), // where each part of value may come from (the analysis's facts), when value is not null
  thrown: z.object({ name: z.string(), message: z.string(), class: ErrorClass.optional() }).optional(),
  limit: ErrorBody.optional(), // resource_limit_exceeded, details.limit says which
  calls: z.array(RunCall), // the first ones (KEPT_CALLS in the sandbox): a run keeps no more
  calls_omitted: z.number().int().nonnegative().optional(), // calls made past those, counted only
  refused: z.number().int().nonnegative(),
  logs: z.array(z.object({ stream: z.enum(["log", "error"]), text: z.string() })),
  cpu_ms: z.number().nonnegative(),
});
export type Execution = z.infer<typeof Execution>;

/** Everything one run did, in the order it happened: what `run --json` prints and the MCP server returns. */
export const RunReport = z.object({
  outcome: RunOutcome,
  check: CheckSummary.optional(),
  policy: z.object({ decision: DecisionKind, rules: z.array(z.string()), reason: z.string() }).optional(),
  request: z.object({ id: z.string(), review_url: z.string().optional() }).optional(),
  // A person's (or the policy's) final word when it is not an approval: the reason or the feedback.
  decision: z.object({ kind: z.string(), reason: z.string().nullable(), feedback: z.string().nullable() }).optional(),
  approval: z
    .object({
      decision: ApprovalKind,
      jti: z.string(),
      expires_in_s: z.number().int(),
      approver: z.string().optional(),
    })
    .optional(),
  execution: Execution.optional(),
  error: ErrorBody.optional(), // why the run stopped, when it was not the program's doing
});
export type RunReport = z.infer<typeof RunReport>;

/** What a run tells its caller while it goes, so that a person or an agent can follow it. */
export type RunEvent =
  | { type: "checked"; check: CheckSummary }
  | { type: "decided"; policy: NonNullable<RunReport["policy"]>; request: NonNullable<RunReport["request"]> }
  | { type: "waiting"; elapsed_ms: number; review_url?: string }
  | { type: "approved"; approval: NonNullable<RunReport["approval"]> }
  | { type: "executed"; execution: Execution };
