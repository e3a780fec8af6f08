import type { Jwks } from "../model/index.js";
import type { Keyring } from "./keyring.js";

/** The public keys receipts may be verified with at `now`: the active one and retired ones not yet expired. */
export function jwks(keyring: Keyring, now: Date = new Date()): Jwks {
  return { keys: keyring.keys.filter((k) => k.expires === null || k.expires > now).map((k) => ({ ...k.publicJwk })) };
}
