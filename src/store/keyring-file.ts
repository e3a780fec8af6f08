import { createPublicKey, type KeyObject } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { CountersignError } from "../model/index.js";
import { describeIssues, entryFromPrivateJwk, type KeyEntry, type Keyring } from "../receipt/index.js";
import { writeFileAtomic } from "./atomic-write.js";

const b64url32 = z.string().regex(/^[A-Za-z0-9_-]{43}$/);

/** One key as stored: the private JWK, when it was made and, once rotated out, when. */
const StoredKey = z
  .object({
    kid: z.string(),
    created: z.iso.datetime(),
    retired: z.iso.datetime().nullable(), // rotation time
    expires: z.iso.datetime().nullable(), // retired + max receipt lifetime: leaves the JWKS then
    jwk: z.object({ kty: z.literal("OKP"), crv: z.literal("Ed25519"), x: b64url32, d: b64url32 }).strict(),
  })
  .strict();

const KeyringFile = z
  .object({ version: z.literal(1), keys: z.array(StoredKey) })
  .strict()
  .refine((f) => f.keys.filter((k) => k.retired === null).length === 1, "must have exactly one active key");
type KeyringFile = z.infer<typeof KeyringFile>;

export function keysDir(home: string): string {
  return join(home, "keys");
}
export function keyringPath(home: string): string {
  return join(keysDir(home), "keyring.json");
}

/** Read and check the keyring: private to its owner, well-formed, every kid the key's thumbprint. */
export async function readKeyring(file: string): Promise<Keyring> {
  const mode = statSync(file).mode;
  if ((mode & 0o077) !== 0) {
    throw configError(
      file,
      `private key file ${file} is accessible by group or others (mode ${(mode & 0o777).toString(8)}); run chmod 600 on it`,
    );
  }
  let parsed: KeyringFile;
  try {
    parsed = KeyringFile.parse(JSON.parse(readFileSync(file, "utf8")));
  } catch (err) {
    throw configError(file, `key file ${file} is not a valid keyring: ${describeIssues(err)}`);
  }
  const keys: KeyEntry[] = [];
  for (const stored of parsed.keys) keys.push(await toEntry(file, stored));
  return { file, keys, active: keys.find((k) => k.retired === null)! };
}

export function writeKeyring(keyring: Pick<Keyring, "file" | "keys">, { exclusive = false } = {}): void {
  const data: KeyringFile = {
    version: 1,
    keys: keyring.keys.map((k) => ({
      kid: k.kid,
      created: k.created.toISOString(),
      retired: k.retired?.toISOString() ?? null,
      expires: k.expires?.toISOString() ?? null,
      jwk: { kty: "OKP", crv: "Ed25519", x: k.publicJwk.x, d: privateD(k.privateKey) },
    })),
  };
  writeFileAtomic(keyring.file, JSON.stringify(data, null, 2) + "\n", 0o600, { exclusive });
}

async function toEntry(file: string, stored: z.infer<typeof StoredKey>): Promise<KeyEntry> {
  const entry = await entryFromPrivateJwk(stored.jwk, new Date(stored.created));
  // A hand-edited or corrupted file must not sign under a kid that names another key.
  const derivedX = createPublicKey(entry.privateKey).export({ format: "jwk" }).x;
  if (entry.kid !== stored.kid || derivedX !== stored.jwk.x) {
    throw configError(file, `key ${stored.kid} in ${file} does not match its private key`);
  }
  return {
    ...entry,
    retired: stored.retired === null ? null : new Date(stored.retired),
    expires: stored.expires === null ? null : new Date(stored.expires),
  };
}

function privateD(key: KeyObject): string {
  const d = key.export({ format: "jwk" }).d;
  if (d === undefined) throw new Error("not a private key");
  return d;
}

function configError(file: string, message: string): CountersignError {
  return new CountersignError("config_error", "receipt", message, { details: { file } });
}
