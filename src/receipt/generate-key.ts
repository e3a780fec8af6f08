import { exportJWK, generateKeyPair } from "jose";
import { entryFromPrivateJwk, type KeyEntry } from "./keyring.js";

/** A fresh Ed25519 key pair, made by jose (WebCrypto), with its thumbprint as kid. */
export async function generateKey(now: Date): Promise<KeyEntry> {
  const { privateKey } = await generateKeyPair("Ed25519", { extractable: true });
  const jwk = await exportJWK(privateKey);
  if (jwk.x === undefined || jwk.d === undefined) throw new Error("Ed25519 key export lacks x or d");
  return entryFromPrivateJwk({ x: jwk.x, d: jwk.d }, now);
}
