// Receipts: keys (Ed25519, JWKS, rotation), issue, verify, per-call grant checks, single use.
export { entryFromPrivateJwk, expiryAfterRotation, type Keyring, type KeyEntry, type KeyStore } from "./keyring.js";
export { generateKey } from "./generate-key.js";
export { describeIssues } from "./describe-issues.js";
export { jwks } from "./jwks.js";
export { issueReceipt, issueReceiptRecord, type IssueInput, type IssuedReceipt } from "./issue.js";
export { importJwks, VerificationKeys } from "./verification-keys.js";
export { verifyReceipt, type VerifyOptions } from "./verify.js";
export type { VerifiedReceipt } from "./verified-receipt.js"; // made by verifyReceipt / verifyAndRedeemReceipt only
export { checkCall, checkCallBeforeRead, type CallAttempt } from "./check-call.js";
export { checkAgentManifestsApproved } from "./check-agent-manifests-approved.js";
export { MemoryRedemptionStore, type RedemptionStore } from "./redemption.js";
export { verifyAndRedeemReceipt } from "./verify-and-redeem-receipt.js";
export { isoTime } from "./verify.js";
export { timeOrderedToken } from "./time-ordered-token.js";
export {
  checkpointKeys,
  CHECKPOINT_TYP,
  Checkpoint,
  signCheckpoint,
  verifyCheckpoint,
  type SignedCheckpoint,
} from "./checkpoint.js";
