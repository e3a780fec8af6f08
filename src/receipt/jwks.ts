import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Jwks } from "../model/receipt.js";
import { writeFileAtomic } from "../store/atomic-write.js";
import { keysDir, type Keyring } from "./keyring-file.js";

/** The public keys receipts may be verified with at `now`: the active one and retired ones not yet expired. */
export function jwks(keyring: Keyring, now: Date = new Date()): Jwks {
  return { keys: keyring.keys.filter((k) => k.expires === null || k.expires > now).map((k) => ({ ...k.publicJwk })) };
}

/** Where the local authority publishes its JWKS for runners on this machine (authority.json points here). */
export function jwksPath(home: string): string {
  return join(keysDir(home), "jwks.json");
}

/** Rewrite the public JWKS file when it no longer matches the keyring (public: mode 0644). */
export function publishJwks(home: string, keyring: Keyring, now: Date = new Date()): void {
  const path = jwksPath(home);
  const text = JSON.stringify(jwks(keyring, now), null, 2) + "\n";
  if (existsSync(path) && readFileSync(path, "utf8") === text) return;
  writeFileAtomic(path, text, 0o644);
}
