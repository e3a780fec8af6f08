import { z } from "zod";
import { Json } from "./json.js";

/** What an audit entry records. Each state change of the store writes its entry in the same transaction. */
export const AuditType = z.enum([
  "submitted",
  "analyzed",
  "decided",
  "expired",
  "withdrawn",
  "receipt_issued",
  "redeemed",
  "redeem_refused",
  "preview_shown",
  "policy_reloaded",
  "token_added",
  "token_revoked",
  "rule_forgotten",
  "approver_login",
  "output_recorded",
  "credential_refreshed",
  "receipt_refused",
]);
export type AuditType = z.infer<typeof AuditType>;

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);

/**
 * One entry of the hash-chained audit log. `hash` is the sha256 of the canonical JSON of every
 * other field, `prev_hash` included; ids are consecutive from 1, so a removed entry shows too.
 */
export const AuditEntry = z
  .object({
    id: z.number().int().positive(),
    at: z.number().int(), // ms since the epoch
    type: AuditType,
    request_id: z.string().nullable(),
    actor: z.string().nullable(), // token name, approver, "policy" or "authority"
    details: z.record(z.string(), Json),
    prev_hash: sha256Hex,
    hash: sha256Hex,
  })
  .strict();
export type AuditEntry = z.infer<typeof AuditEntry>;

/** Entries the authority writes itself; the others are written by the store's own operations. */
export const ExternalAudit = z.discriminatedUnion("type", [
  z
    .object({
      type: z.literal("preview_shown"),
      request_id: z.string().min(1),
      actor: z.string().min(1),
      preview_sha256: sha256Hex, // the hash of what was shown, never the preview itself
    })
    .strict(),
  z
    .object({
      type: z.literal("policy_reloaded"),
      actor: z.string().min(1),
      ok: z.boolean(),
      policy_sha256: sha256Hex.optional(), // the policy now in force
      error: z.string().optional(), // why the new policy was refused (the old one stays)
    })
    .strict(),
  z
    .object({
      type: z.literal("credential_refreshed"),
      actor: z.string().min(1),
      connection: z.string().min(1), // the connections.toml table whose access token was renewed, never a token
      reason: z.enum(["expired", "unauthorized"]), // the cached token was missing or near its expiry, or the API answered 401
      ok: z.boolean(),
      error: z.string().optional(), // the token endpoint's error code (e.g. invalid_grant) when it refused
    })
    .strict(),
  z
    .object({
      type: z.literal("receipt_refused"),
      request_id: z.string().min(1),
      actor: z.string().min(1),
      reason: z.string().min(1), // why the request's approval is not in the verified audit chain
    })
    .strict(),
]);
export type ExternalAudit = z.infer<typeof ExternalAudit>;

/** The result of recomputing the chain: the first entry that breaks it, and how. */
export const AuditVerification = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), entries: z.number().int().nonnegative(), head: sha256Hex }),
  z.object({
    ok: z.literal(false),
    entries: z.number().int().nonnegative(), // entries that verified before the broken one
    broken_id: z.number().int().nonnegative(),
    reason: z.enum([
      "malformed",
      "hash_mismatch",
      "prev_hash_mismatch",
      "id_gap",
      "head_mismatch",
      "checkpoint_mismatch",
      "truncated",
      "checkpoint_forged",
    ]),
    message: z.string(),
  }),
]);
export type AuditVerification = z.infer<typeof AuditVerification>;
