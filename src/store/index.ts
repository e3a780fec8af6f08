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
export { MemoryRequestStore } from "./memory-request-store.js";
