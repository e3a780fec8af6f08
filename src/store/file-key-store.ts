import type { KeyStore } from "../receipt/index.js";
import { openKeyring } from "./open-keyring.js";
import { rotateKeyring } from "./rotate-keyring.js";

/**
 * The key store of a data directory: `keys/keyring.json` (mode 0600, in a 0700 folder), with the
 * public keys published in `keys/jwks.json` for local runners.
 */
export function fileKeyStore(dataDir: string): KeyStore {
  return {
    keyring: (now) => openKeyring(dataDir, now),
    rotate: (now) => rotateKeyring(dataDir, now),
  };
}
