import { expiryAfterRotation, generateKey, type Keyring } from "../receipt/index.js";
import { publishJwks } from "./jwks-file.js";
import { writeKeyring } from "./keyring-file.js";
import { openKeyring } from "./open-keyring.js";

/**
 * Make a new active key. The old one signs nothing more but stays in the JWKS until every receipt
 * it may have signed has expired (rotation time + the maximum lifetime). One atomic write.
 */
export async function rotateKeyring(home: string, now: Date = new Date()): Promise<Keyring> {
  const current = await openKeyring(home, now);
  const fresh = await generateKey(now);
  const keys = current.keys.map((k) =>
    k === current.active ? { ...k, retired: now, expires: expiryAfterRotation(now) } : k,
  );
  const keyring: Keyring = { file: current.file, keys: [...keys, fresh], active: fresh };
  publishJwks(home, keyring, now); // first: a crash in between leaves an unused public key, never a missing one
  writeKeyring(keyring);
  return keyring;
}
