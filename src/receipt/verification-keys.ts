import { createPublicKey, type KeyObject } from "node:crypto";
import { CountersignError } from "../model/index.js";
import { Ed25519PublicJwk, Jwks } from "../model/index.js";
import { describeIssues } from "./describe-issues.js";

/**
 * The keys a verifier trusts, imported once: kid → Ed25519 public key. Built only by
 * `importJwks`, so a verifier never takes a key from anywhere but the authority's JWKS.
 */
export class VerificationKeys {
  readonly #byKid: ReadonlyMap<string, KeyObject>;

  /** @internal use importJwks */
  constructor(byKid: ReadonlyMap<string, KeyObject>) {
    this.#byKid = byKid;
  }

  get(kid: string): KeyObject | undefined {
    return this.#byKid.get(kid);
  }

  get kids(): string[] {
    return [...this.#byKid.keys()];
  }
}

/**
 * Import a JWKS. Only OKP/Ed25519 signing keys with a kid are usable; other members (RSA, EC,
 * encryption keys, no kid) are left out, as is a kid that appears twice (ambiguous). A member
 * carrying private key material means the wrong file was published: refused outright.
 */
export function importJwks(jwks: unknown): VerificationKeys {
  const parsed = Jwks.safeParse(jwks);
  if (!parsed.success) throw badJwks(describeIssues(parsed.error));
  const byKid = new Map<string, KeyObject>();
  const seen = new Set<string>();
  for (const member of parsed.data.keys) {
    if ("d" in member || "p" in member || "k" in member)
      throw badJwks(`key ${String(member.kid)} holds private key material`);
    const jwk = Ed25519PublicJwk.safeParse(member);
    if (!jwk.success) continue;
    const { kid, x } = jwk.data;
    if (seen.has(kid)) {
      byKid.delete(kid);
      continue;
    }
    seen.add(kid);
    try {
      byKid.set(kid, createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x }, format: "jwk" }));
    } catch {
      // not a valid public key: unusable, like any other foreign member
    }
  }
  return new VerificationKeys(byKid);
}

function badJwks(message: string): CountersignError {
  return new CountersignError("config_error", "receipt", `invalid JWKS: ${message}`);
}
