import { createPublicKey, type KeyObject } from "node:crypto";
import { z } from "zod";
import { CountersignError } from "../model/index.js";
import { signEd25519, verifyEd25519 } from "./ed25519.js";
import type { KeyEntry } from "./keyring.js";

/** The JWS `typ` of a checkpoint: never confused with a receipt, whose typ differs. */
export const CHECKPOINT_TYP = "countersign-checkpoint+jws";

/** Far more than a checkpoint's few fields take: anything longer is refused before it is decoded. */
const MAX_CHECKPOINT_BYTES = 2048;

/**
 * A signed head of the audit chain, like a transparency log's signed tree head: the chain held
 * `size` entries and entry `size` had hash `head`, at time `at` (ms). An empty chain has no checkpoint.
 */
export const Checkpoint = z
  .object({
    size: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
    head: z.string().regex(/^[0-9a-f]{64}$/),
    at: z.number().int().nonnegative(),
  })
  .strict();
export type Checkpoint = z.infer<typeof Checkpoint>;

/** A checkpoint whose signature verified, with the kid of the key that made it. */
export type SignedCheckpoint = Checkpoint & { kid: string; jws: string };

/** Sign a checkpoint as a compact JWS with the keyring's active key. */
export function signCheckpoint(checkpoint: Checkpoint, key: Pick<KeyEntry, "kid" | "privateKey">): string {
  const { size, head, at } = Checkpoint.parse(checkpoint);
  const header = encode({ alg: "EdDSA", typ: CHECKPOINT_TYP, kid: key.kid });
  const signingInput = `${header}.${encode({ size, head, at })}`;
  return `${signingInput}.${signEd25519(key.privateKey, Buffer.from(signingInput, "ascii")).toString("base64url")}`;
}

/**
 * The checkpoint a compact JWS holds, once its signature verifies with one of `keys` (kid → public
 * key). Refused, naming why: not a checkpoint, a header other than ours, a key the authority does
 * not have, or a signature that does not verify.
 */
export function verifyCheckpoint(jws: unknown, keys: (kid: string) => KeyObject | undefined): SignedCheckpoint {
  if (typeof jws !== "string" || jws.length > MAX_CHECKPOINT_BYTES) throw forged("malformed", "it is not a checkpoint");
  const parts = jws.trim().split(".");
  if (parts.length !== 3) throw forged("malformed", "it is not a compact JWS");
  const [h, p, s] = parts as [string, string, string];
  const header = decode(h);
  if (
    header === undefined ||
    header.alg !== "EdDSA" ||
    header.typ !== CHECKPOINT_TYP ||
    typeof header.kid !== "string" ||
    Object.keys(header).length !== 3
  ) {
    throw forged("malformed", "its header is not a checkpoint's");
  }
  const key = keys(header.kid);
  if (key === undefined)
    throw forged("unknown_kid", `it was signed with key ${header.kid}, which is not one of this authority's keys`);
  if (!verifyEd25519(key, Buffer.from(`${h}.${p}`, "ascii"), canonical(s) ?? Buffer.alloc(0))) {
    throw forged("bad_signature", `its signature does not verify with key ${header.kid}`);
  }
  const parsed = Checkpoint.safeParse(decode(p));
  if (!parsed.success) throw forged("malformed", "its payload is not a checkpoint");
  return { ...parsed.data, kid: header.kid, jws: parts.join(".") };
}

/** A lookup over a keyring's keys, retired ones included: a checkpoint outlives the key rotation after it. */
export function checkpointKeys(
  keys: readonly Pick<KeyEntry, "kid" | "publicJwk">[],
): (kid: string) => KeyObject | undefined {
  const byKid = new Map(keys.map((k) => [k.kid, k.publicJwk]));
  return (kid) => {
    const jwk = byKid.get(kid);
    return jwk === undefined ? undefined : publicKeyOf(jwk.x);
  };
}

function publicKeyOf(x: string): KeyObject {
  return createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x }, format: "jwk" });
}

function forged(reason: "malformed" | "unknown_kid" | "bad_signature", message: string): CountersignError {
  return new CountersignError("receipt_invalid", "receipt", `audit checkpoint refused (${reason}): ${message}`, {
    details: { reason },
  });
}

const encode = (value: object): string => Buffer.from(JSON.stringify(value), "utf8").toString("base64url");

/** The bytes of a base64url part, only when it is their one canonical encoding. */
function canonical(part: string): Buffer | undefined {
  const bytes = Buffer.from(part, "base64url");
  return bytes.toString("base64url") === part ? bytes : undefined;
}

function decode(part: string): Record<string, unknown> | undefined {
  const bytes = canonical(part);
  if (bytes === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(bytes.toString("utf8"));
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
