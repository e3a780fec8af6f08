import { existsSync } from "node:fs";
import { CountersignError } from "../model/index.js";
import { makePrivateDir } from "../model/index.js";
import { generateKey, type Keyring } from "../receipt/index.js";
import { publishJwks } from "./jwks-file.js";
import { keyringPath, keysDir, readKeyring, writeKeyring } from "./keyring-file.js";

/**
 * The keyring of the data directory `home`, made on first use (keys/ mode 0700, keyring.json
 * mode 0600). Retired keys whose receipts have all expired are pruned, and keys/jwks.json is
 * brought up to date.
 */
export async function openKeyring(home: string, now: Date = new Date()): Promise<Keyring> {
  try {
    makePrivateDir(keysDir(home));
  } catch (err) {
    throw new CountersignError(
      "config_error",
      "receipt",
      `cannot create the key directory ${keysDir(home)}: ${(err as Error).message}`,
      {
        details: { dir: keysDir(home) },
        cause: err,
      },
    );
  }
  const file = keyringPath(home);
  if (!existsSync(file)) await create(file, now);
  const read = await readKeyring(file);
  const live = read.keys.filter((k) => k.expires === null || k.expires > now);
  const keyring = live.length === read.keys.length ? read : { ...read, keys: live };
  if (keyring !== read) writeKeyring(keyring);
  publishJwks(home, keyring, now);
  return keyring;
}

async function create(file: string, now: Date): Promise<void> {
  const key = await generateKey(now);
  try {
    writeKeyring({ file, keys: [key] }, { exclusive: true });
  } catch (err) {
    // Another process made the keyring first: use theirs.
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  }
}
