import type { AuditEntry } from "../model/index.js";
import { GENESIS_HASH, verifyChain } from "./audit-chain.js";
import { rows } from "./audit-log.js";
import type { StoreContext } from "./change.js";

/** A checkpoint as stored: its signature is checked by whoever reads it, never trusted from the database. */
export interface StoredCheckpoint {
  size: number;
  kid: string; // the key it says it is signed with; a reader verifies that

  head: string;
  at: number;
  jws: string;
}

/** Keep a signed head; the first one signed at a size with a key stands (the same head, signed again, adds nothing). */
export async function recordCheckpoint(ctx: StoreContext, checkpoint: StoredCheckpoint): Promise<void> {
  await ctx.driver.write((tx) =>
    tx.run(
      "INSERT INTO audit_checkpoints (size, kid, head, at, jws) VALUES (?, ?, ?, ?, ?) ON CONFLICT (size, kid) DO NOTHING",
      [checkpoint.size, checkpoint.kid, checkpoint.head, checkpoint.at, checkpoint.jws],
    ),
  );
}

/**
 * Checkpoints are read per signing key: several authorities on one database each vouch with their
 * own key, and a reader holds the chain to the ones it can verify (`kids`).
 */
function signedWith(kids: readonly string[]): { where: string; params: string[] } {
  return { where: kids.length === 0 ? "1 = 0" : `kid IN (${kids.map(() => "?").join(", ")})`, params: [...kids] };
}

/** The JWS of every checkpoint stored with one of `kids`, smallest size first. */
export async function checkpointTokens(ctx: StoreContext, kids: readonly string[]): Promise<string[]> {
  const mine = signedWith(kids);
  const found = await ctx.driver.read((q) =>
    q.all(`SELECT jws FROM audit_checkpoints WHERE ${mine.where} ORDER BY size`, mine.params),
  );
  return found.map((row) => String(row.jws));
}

/** The JWS of the checkpoint of the largest size stored with one of `kids`, if any. */
export async function newestCheckpoint(ctx: StoreContext, kids: readonly string[]): Promise<string | undefined> {
  const mine = signedWith(kids);
  const found = await ctx.driver.read((q) =>
    q.all(`SELECT jws FROM audit_checkpoints WHERE ${mine.where} ORDER BY size DESC LIMIT 1`, mine.params),
  );
  return found[0] === undefined ? undefined : String(found[0].jws);
}

/** The id of the last `decided` entry of a request, if it has one. */
export async function decisionEntryId(ctx: StoreContext, requestId: string): Promise<number | undefined> {
  const found = await ctx.driver.read((q) =>
    q.all("SELECT MAX(id) AS id FROM audit WHERE request_id = ? AND type = 'decided'", [requestId]),
  );
  const id = found[0]?.id;
  return id === null || id === undefined ? undefined : Number(id);
}

/**
 * The checkpoints stored with one of `kids` either side of entry `id`: the last one before it, and the first that holds
 * it.
 */
export async function checkpointsAround(
  ctx: StoreContext,
  id: number,
  kids: readonly string[],
): Promise<{ before?: string; holding?: string }> {
  const mine = signedWith(kids);
  const [before, holding] = await ctx.driver.read(async (q) => [
    await q.all(`SELECT jws FROM audit_checkpoints WHERE size < ? AND ${mine.where} ORDER BY size DESC LIMIT 1`, [
      id,
      ...mine.params,
    ]),
    await q.all(`SELECT jws FROM audit_checkpoints WHERE size >= ? AND ${mine.where} ORDER BY size LIMIT 1`, [
      id,
      ...mine.params,
    ]),
  ]);
  return {
    ...(before?.[0] === undefined ? {} : { before: String(before[0].jws) }),
    ...(holding?.[0] === undefined ? {} : { holding: String(holding[0].jws) }),
  };
}

/**
 * Entry `id`, read only as part of the stretch of the chain between two signed heads (`from`,
 * verified, or the start of the chain; and `to`, which holds it): every entry of that stretch must
 * verify and link, and the last must be `to`'s head. Only the stretch is read, not the chain from
 * its start: checkpoints are made at every decision, so a stretch is a few entries.
 */
export async function entryBetweenCheckpoints(
  ctx: StoreContext,
  id: number,
  from: { size: number; head: string } | undefined,
  to: { size: number; head: string; from: string },
): Promise<{ ok: true; entry: AuditEntry } | { ok: false; message: string }> {
  const start = from === undefined ? { id: 0, hash: GENESIS_HASH } : { id: from.size, hash: from.head };
  let found: AuditEntry | undefined;
  async function* watched(): AsyncGenerator<Record<string, unknown>> {
    for await (const row of rows(ctx, to.size, start.id)) {
      if (row.id === id) found = row as unknown as AuditEntry; // returned only once the whole stretch verified
      yield row;
    }
  }
  const result = await verifyChain(watched(), { from: start, checkpoints: [{ ...to }] });
  if (!result.ok) return { ok: false, message: result.message };
  if (found === undefined) return { ok: false, message: `audit entry ${id} is missing` };
  return { ok: true, entry: found };
}
