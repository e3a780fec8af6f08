// The durable store (SQLite or PostgreSQL) and the hash-chained audit log.
export { openStore, storeOver, isPostgresUrl, SQLITE_FILE, type OpenStoreOptions } from "./open-store.js";
export { Store } from "./store.js";
export { migrate, MIGRATIONS, type Migration } from "./migrations.js";
export { openSqliteDriver } from "./sqlite-driver.js";
export { openPostgresDriver, redactUrl } from "./postgres-driver.js";
export type { Driver, Dialect } from "./driver.js";
export { verifyChain, entryHash, sha256Json, GENESIS_HASH } from "./audit-chain.js";
export { newRequestId, type SubmitResult } from "./submit-request.js";
export type { DecideResult } from "./decide-request.js";
export type { CheckpointSigner } from "./change.js";
export type { WithdrawResult } from "./withdraw-request.js";
export type { RecordedRequest, RequestListPage } from "./list-requests.js";
export { MAX_RECEIPTS_PER_REQUEST } from "./receipts.js";
export type { ReceiptRecord, ReceiptToHandOut, RecordReceiptResult, RedeemOutcome } from "./receipts.js";
export type { StoredRule } from "./remembered-rules.js";
export { HANDLE_LIFETIME_MS, type HandleRow, type StoredHandle } from "./handles.js";
export type { TokenInfo } from "./tokens.js";
export type { EventsListener, SubscribeOptions } from "./events.js";
// Persistence at the edge: the data directory's files today (keys, redemptions, the local
// authority), SQLite and PostgreSQL with the authority. Stages receive these through interfaces.
export { writeFileAtomic } from "./atomic-write.js";
export { fileKeyStore } from "./file-key-store.js";
export { FileRedemptionStore } from "./file-redemption-store.js";
export { keyringPath, keysDir } from "./keyring-file.js";
export { jwksPath } from "./jwks-file.js";
export { openKeyring } from "./open-keyring.js";
export { rotateKeyring } from "./rotate-keyring.js";
export { authorityPath, loadLocalAuthority, writeLocalAuthority } from "./authority-file.js";
export { localAuthorityUrl } from "./authority-url.js";
export {
  APPROVER_SECRET_FILE,
  SUBMITTER_TOKEN_FILE,
  createApproverSecret,
  readApproverSecret,
  requireWritableDir,
  writeNewFile,
} from "./data-dir-files.js";
export type { LoginLink } from "./login-links.js";
export type { GivenRecord } from "./given-texts.js";
export { frozenJson } from "./checked-json.js";
export { CHECKPOINT_FILE, checkpointFile, readCheckpointFile, writeCheckpointFile } from "./checkpoint-file.js";
export type { HeadToHold } from "./audit-chain.js";
