// Receipts: keys (Ed25519, JWKS, rotation), issue, verify, per-call grant checks, single use.
export { openKeyring } from "./open-keyring.js";
export { rotateKeyring } from "./rotate-keyring.js";
export { keyringPath, type Keyring, type KeyEntry } from "./keyring-file.js";
export { jwks, jwksPath } from "./jwks.js";
export { authorityPath, loadLocalAuthority, writeLocalAuthority } from "./authority-file.js";
export { issueReceipt, type IssueInput } from "./issue.js";
export { importJwks, VerificationKeys } from "./verification-keys.js";
export { verifyReceipt, type VerifyOptions } from "./verify.js";
export type { VerifiedReceipt } from "./verified-receipt.js"; // made by verifyReceipt / startRun only
export { checkCall, type CallAttempt } from "./check-call.js";
export { MemoryRedemptionStore, type RedemptionStore } from "./redemption.js";
export { startRun } from "./start-run.js";
