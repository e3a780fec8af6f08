import { hash, randomBytes, timingSafeEqual } from "node:crypto";
import { TokenName } from "../model/index.js";
import { change, DURABLE, type StoreContext } from "./change.js";
import { parseInput } from "./parse-input.js";
import { storeUsageError } from "./store-error.js";

export interface TokenInfo {
  name: string;
  created_at: number;
  revoked_at: number | null;
}

const PREFIX = "cs_";

/**
 * Tokens are 256 random bits, so one sha256 is enough: nothing to brute-force, no salt needed. Hex, as stored (node's
 * one-shot hash answers hex faster than a Buffer).
 */
function tokenHash(token: string): string {
  return hash("sha256", token, "hex");
}

/**
 * Make a submitter token for one agent. Only its hash is stored; the token itself is returned
 * once, here. A revoked name may be given a new token; an active one may not be replaced.
 */
export async function addToken(ctx: StoreContext, rawName: string): Promise<{ name: string; token: string }> {
  const name = parseInput(TokenName, rawName, "token name");
  const token = PREFIX + randomBytes(32).toString("base64url");
  const hash = tokenHash(token);
  return change(ctx, async (c) => {
    const existing = (await c.tx.all("SELECT revoked_at FROM tokens WHERE name = ?", [name]))[0];
    if (existing !== undefined && existing.revoked_at === null)
      throw storeUsageError(`a token named ${name} exists; revoke it first`, { name });
    if (existing === undefined)
      await c.tx.run("INSERT INTO tokens (name, hash, created_at) VALUES (?, ?, ?)", [name, hash, c.now]);
    else
      await c.tx.run("UPDATE tokens SET hash = ?, created_at = ?, revoked_at = NULL WHERE name = ?", [
        hash,
        c.now,
        name,
      ]);
    await c.audit({ type: "token_added", request_id: null, actor: "authority", details: { name } });
    return { name, token };
  });
}

/**
 * Revoke at once: `authenticate` answers from memory only while no transaction has committed since its read
 * (ReadCache).
 */
export async function revokeToken(ctx: StoreContext, name: string): Promise<boolean> {
  return change(
    ctx,
    async (c) => {
      const changed = await c.tx.run("UPDATE tokens SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL", [
        c.now,
        name,
      ]);
      if (changed === 1)
        await c.audit({ type: "token_revoked", request_id: null, actor: "authority", details: { name } });
      return changed === 1;
    },
    DURABLE,
  );
}

export async function listTokens(ctx: StoreContext): Promise<TokenInfo[]> {
  const rows = await ctx.driver.read((q) => q.all("SELECT name, created_at, revoked_at FROM tokens ORDER BY name"));
  return rows.map((r) => ({
    name: String(r.name),
    created_at: Number(r.created_at),
    revoked_at: r.revoked_at === null ? null : Number(r.revoked_at),
  }));
}

/**
 * The name of the active token `token` is, or null. Looked up by its hash (the index sees only
 * hashes, never the token) and compared again in constant time.
 */
export async function authenticate(ctx: StoreContext, token: string): Promise<string | null> {
  if (typeof token !== "string" || !token.startsWith(PREFIX) || token.length > 100) return null;
  const hex = tokenHash(token);
  const row = (
    await ctx.reads.read(
      `token:${hex}`,
      () => ctx.driver.read((q) => q.all("SELECT name, hash, revoked_at FROM tokens WHERE hash = ?", [hex])),
      true,
    )
  )[0]; // fresh: a token revoked before this request arrived is refused
  if (row === undefined || row.revoked_at !== null) return null;
  const stored = Buffer.from(String(row.hash), "hex");
  const given = Buffer.from(hex, "hex");
  return stored.length === given.length && timingSafeEqual(stored, given) ? String(row.name) : null;
}
