import { z } from "zod";
import { PolicyDecision } from "./decision.js";
import { Facts } from "./facts.js";
import { Json } from "./json.js";

/**
 * Where a request stands. `pending` waits for a person; every other status is final.
 * approved: auto_approved | approved_once | approved_remember; rejected: auto_rejected | rejected.
 */
export const RequestStatus = z.enum(["pending", "approved", "rejected", "request_more", "expired", "withdrawn"]);
export type RequestStatus = z.infer<typeof RequestStatus>;

/** How long a request may wait for a person: default 15 minutes, at most 24 hours. */
export const DEFAULT_DEADLINE_SECONDS = 15 * 60;
export const MAX_DEADLINE_SECONDS = 24 * 60 * 60;

/** The most a submitter may say beside its program (the program's own rationale is part of it). */
export const MAX_RATIONALE_CHARS = 10_000;

/** The name a submitter token is known by (`token add NAME`); requests record it. */
export const TokenName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, "must be 1-64 letters, digits, '_', '.' or '-'");

/**
 * A rule saved by "approve and remember", kept with the request that made it: for one submitter
 * token or every agent (`token: null`), until `expires_at` (ms since the epoch) or forgotten (null).
 */
export const RememberedRule = z
  .object({
    id: z.string().min(1).max(200),
    op: z.string().min(1),
    rule: z.record(z.string(), Json),
    token: TokenName.nullable().default(null),
    expires_at: z.number().int().positive().nullable().default(null),
  })
  .strict();
export type RememberedRule = z.infer<typeof RememberedRule>;

const Bound = z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/), policy: PolicyDecision }).strict();

/** What a person decides about a pending request. */
export const PersonDecision = z.discriminatedUnion("kind", [
  // `bound`: the policy decision with its grants narrowed to the resolved content the person was
  // shown (a draft's recipients, subject, body), and the digest of that showing; absent when the
  // request has nothing to bind.
  z.object({ kind: z.literal("approved_once"), approver: z.string().min(1), bound: Bound.optional() }).strict(),
  z
    .object({
      kind: z.literal("approved_remember"),
      approver: z.string().min(1),
      rules: z.array(RememberedRule),
      bound: Bound.optional(),
    })
    .strict(),
  z
    .object({
      kind: z.literal("rejected"),
      approver: z.string().min(1),
      reason: z.string().trim().min(1, "a rejection needs a reason"),
    })
    .strict(),
  z
    .object({
      kind: z.literal("request_more"),
      approver: z.string().min(1),
      feedback: z.string().trim().min(1, "a request for changes needs feedback"),
    })
    .strict(),
]);
export type PersonDecision = z.infer<typeof PersonDecision>;

/**
 * Request ids: 22 base64url characters, the time in milliseconds (sorting as it grows, so that new rows go to the end
 * of the indexes) and 96 random bits.
 */
export const RequestId = z
  .string()
  .regex(/^req_[A-Za-z0-9_-]{22}$/, "must be req_ and 22 base64url characters (a time prefix and 96 random bits)");

/** A signed receipt by its id and expiry (seconds since the epoch), as a runner redeems it. */
export const ReceiptRef = z
  .object({
    jti: z.string().regex(/^[A-Za-z0-9_-]{22}$/, "must be 22 base64url characters (a time prefix and 96 random bits)"),
    exp: z.number().int().positive(),
  })
  .strict();
export type ReceiptRef = z.infer<typeof ReceiptRef>;

/**
 * A receipt as the store keeps it: its ref and its signed text, handed out again to every read
 * while it is valid (a receipt is worth one run, until its exp, to its own submitter only).
 */
export const StoredReceipt = ReceiptRef.extend({ token: z.string().min(1) }).strict();
export type StoredReceipt = z.infer<typeof StoredReceipt>;

/** A new request: the program as submitted and what the authority's own analysis and policy said. */
export const SubmitInput = z
  .object({
    token: TokenName, // the submitter token that sent it
    source: z.string(), // the program text; facts.program.sha256 is its UTF-8 hash
    facts: Facts,
    policy: PolicyDecision,
    rationale: z.string().max(MAX_RATIONALE_CHARS).optional(), // the submitter's own words beside the program's
    // The agent manifests the program was analyzed with, as their canonical text: given exactly
    // when facts.agentManifests is, and its sha256 (checked here and at every load).
    agent_manifests: z.string().optional(),
    deadline_s: z.number().int().min(1).max(MAX_DEADLINE_SECONDS).default(DEFAULT_DEADLINE_SECONDS),
    // An auto-approved request's receipt, signed before storing (for the id the caller chose):
    // recorded in the same transaction, so the request and its receipt commit together.
    id: RequestId.optional(),
    receipt: StoredReceipt.optional(),
  })
  .strict();
export type SubmitInput = z.input<typeof SubmitInput>;

/** The decision recorded on a request (a policy's or a person's). */
export const RecordedDecision = z.object({
  kind: z.enum(["auto_approved", "auto_rejected", "approved_once", "approved_remember", "rejected", "request_more"]),
  approver: z.string().nullable(), // null: the policy decided
  reason: z.string().nullable(),
  feedback: z.string().nullable(),
  at: z.number().int(), // ms since the epoch
});
export type RecordedDecision = z.infer<typeof RecordedDecision>;

/** One request as the store keeps it. Times are milliseconds since the epoch. */
export const StoredRequest = z.object({
  id: z.string(),
  seq: z.number().int().positive(), // insertion order: the keyset of listings
  token: z.string(),
  status: RequestStatus,
  source: z.string(),
  facts: Facts,
  policy: PolicyDecision,
  rationale: z.string().nullable(), // the submitter's words, shown as such
  // The canonical text of the agent manifests it was submitted with (hashing to
  // facts.agentManifests.sha256); absent without agent manifests, or on a request stored before
  // countersign kept them (only their hash is known then).
  agent_manifests: z.string().optional(),
  created_at: z.number().int(),
  deadline_at: z.number().int(),
  decision: RecordedDecision.nullable(),
});
export type StoredRequest = z.infer<typeof StoredRequest>;

/** `GET /v1/requests?status=&limit=&cursor=`: newest first, keyset pagination over `seq`. */
export const ListQuery = z
  .object({
    status: RequestStatus.optional(),
    limit: z.number().int().min(1).max(500).default(50),
    cursor: z
      .string()
      .regex(/^[1-9][0-9]{0,15}$/, "must be a cursor from a previous page")
      .optional(),
  })
  .strict();
export type ListQuery = z.input<typeof ListQuery>;

/** A change event for the approver UI; `id` is the audit entry that records it (monotonic). */
export const StoreEvent = z.object({
  id: z.number().int().positive(),
  type: z.enum(["pending", "resolved", "expired"]),
  request_id: z.string(),
  status: RequestStatus,
  at: z.number().int(),
});
export type StoreEvent = z.infer<typeof StoreEvent>;
