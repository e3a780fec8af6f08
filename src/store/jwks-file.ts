import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { jwks, type Keyring } from "../receipt/index.js";
import { writeFileAtomic } from "./atomic-write.js";
import { keysDir } from "./keyring-file.js";

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
