/**
 * countersign/receipt: what a service outside countersign needs to check a receipt before it
 * acts — verify it against the authority's JWKS and the exact program bytes, redeem it once,
 * then admit each call against its grants and counts. docs/receipts.md describes the format and
 * every check, for verifiers in other languages. Nothing here issues receipts or holds keys.
 */
import { GrantViolationReason, ReceiptInvalidReason } from "../model/index.js";

/**
 * Verify a receipt: header, signature (by the JWKS key its kid names), claims, issuer, audience,
 * times, lifetime, the program's SHA-256 and the agent manifests' hash, in that order. Throws a
 * CountersignError of class `receipt_invalid` whose `details.reason` names the first check that
 * failed. It does not redeem the receipt: use verifyAndRedeemReceipt for that.
 */
export { verifyReceipt, type VerifyOptions } from "./verify.js";
/** verifyReceipt, then redeem the receipt's jti in a RedemptionStore: refused as `replayed` the second time. */
export { verifyAndRedeemReceipt } from "./verify-and-redeem-receipt.js";
/** Single use: `redeem` answers true once per jti; MemoryRedemptionStore is one process's store. */
export { MemoryRedemptionStore, type RedemptionStore } from "./redemption.js";
/**
 * Admit one call under a verified receipt, or throw a CountersignError (`grant_violation` with
 * `details.reason`, `details.op` and, where one argument is at fault, `details.input`; or
 * `receipt_invalid`/`expired` once the receipt has expired). An admitted call is counted in the
 * receipt's run; a refused one uses up nothing.
 */
export { checkCall, type CallAttempt } from "./check-call.js";
/** Import a JWKS once (Ed25519 keys with a kid; other members are left out, private keys refused). */
export { importJwks, type VerificationKeys } from "./verification-keys.js";
/** A receipt that passed verifyReceipt: its kid, its frozen claims and the calls admitted so far. */
export type { VerifiedReceipt } from "./verified-receipt.js";
export {
  CountersignError,
  type ErrorClass,
  CLOCK_TOLERANCE_SECONDS,
  MAX_LIFETIME_SECONDS,
  MAX_RECEIPT_BYTES,
  RECEIPT_AUDIENCE,
  RECEIPT_TYP,
  type Json,
  type Jwks,
  type ReceiptClaims,
  type ReceiptCrossOpLimit,
  type ReceiptGrant,
  type ValueConstraint,
} from "../model/index.js";
export type { GrantViolationReason, ReceiptInvalidReason } from "../model/index.js";

/** Every `details.reason` of a `receipt_invalid` error, stable across versions. */
export const RECEIPT_INVALID_REASONS: readonly ReceiptInvalidReason[] = ReceiptInvalidReason.options;
/** Every `details.reason` of a `grant_violation` error, stable across versions. */
export const GRANT_VIOLATION_REASONS: readonly GrantViolationReason[] = GrantViolationReason.options;
