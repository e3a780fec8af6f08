import { createPrivateKey, type KeyObject } from "node:crypto";
import { calculateJwkThumbprint } from "jose";
import { type Ed25519PublicJwk, MAX_LIFETIME_SECONDS } from "../model/index.js";

export interface KeyEntry {
  kid: string;
  created: Date;
  retired: Date | null;
  expires: Date | null;
  publicJwk: Ed25519PublicJwk;
  privateKey: KeyObject;
}

/** The signing keys of one authority; `active` signs new receipts. `file` names where they are kept, for messages. */
export interface Keyring {
  file: string;
  keys: KeyEntry[];
  active: KeyEntry;
}

/**
 * Where an authority keeps its signing keys: a file in the data directory (store/file-key-store.ts)
 * today, the authority's database tomorrow. Every answer is the keyring as of `now`.
 */
export interface KeyStore {
  /** The keyring, made on first use; retired keys whose receipts have all expired are dropped. */
  keyring(now: Date): Promise<Keyring>;
  /** A new active key; the old one stays published until every receipt it signed has expired. */
  rotate(now: Date): Promise<Keyring>;
}

/** Retired keys stay published until every receipt they signed has expired. */
export function expiryAfterRotation(rotated: Date): Date {
  return new Date(rotated.getTime() + MAX_LIFETIME_SECONDS * 1000);
}

/** A key entry from a private JWK; the kid is its RFC 7638 thumbprint. */
export async function entryFromPrivateJwk(jwk: { x: string; d: string }, created: Date): Promise<KeyEntry> {
  const kid = await calculateJwkThumbprint({ kty: "OKP", crv: "Ed25519", x: jwk.x }, "sha256");
  const privateKey = createPrivateKey({ key: { kty: "OKP", crv: "Ed25519", x: jwk.x, d: jwk.d }, format: "jwk" });
  return {
    kid,
    created,
    retired: null,
    expires: null,
    publicJwk: { kty: "OKP", crv: "Ed25519", x: jwk.x, kid, alg: "EdDSA", use: "sig" },
    privateKey,
  };
}
