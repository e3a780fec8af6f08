import { type KeyObject, sign, verify } from "node:crypto";

/**
 * Raw Ed25519 verification (RFC 8032, as OpenSSL implements it: canonical S, strict encodings)
 * on a key imported once. Synchronous node:crypto rather than jose's WebCrypto path: same
 * OpenSSL underneath, without the per-call promise and key handling.
 */
export function verifyEd25519(key: KeyObject, data: Uint8Array, signature: Uint8Array): boolean {
  if (signature.length !== 64 || key.asymmetricKeyType !== "ed25519" || key.type !== "public") return false;
  try {
    return verify(null, data, key, signature);
  } catch {
    return false;
  }
}

/** Raw Ed25519 signing with the private key, synchronous for the same reason as verifyEd25519. */
export function signEd25519(key: KeyObject, data: Uint8Array): Buffer {
  return sign(null, data, key);
}
