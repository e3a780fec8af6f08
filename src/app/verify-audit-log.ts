import { CountersignError, type AuditVerification } from "../model/index.js";
import { checkpointKeys, verifyCheckpoint, type SignedCheckpoint } from "../receipt/index.js";
import { checkpointFile, readCheckpointFile, type HeadToHold } from "../store/index.js";
import type { AppContext } from "./context.js";

/** What `audit verify` found, and which signed heads it held the chain to. */
export interface AuditLogCheck {
  verification: AuditVerification;
  stored: number; // checkpoints in the database, every one verified
  newestStored?: number; // the size of the newest of them
  outside?: { from: string; size: number }; // the checkpoint kept outside the database
}

/**
 * `audit verify`: the chain recomputed from its start, holding every checkpoint stored in the
 * database and the one kept outside it (`checkpoint`, a file the user names; by default the
 * data directory's checkpoint file, when there is one). A checkpoint whose signature does not
 * verify with one of the authority's keys fails the check, naming where it was kept.
 */
export async function verifyAuditLog(ctx: AppContext, options: { checkpoint?: string } = {}): Promise<AuditLogCheck> {
  const store = await ctx.store();
  const keyring = await ctx.keys.keyring(ctx.now());
  const keys = checkpointKeys(keyring.keys);
  const held: HeadToHold[] = [];
  const verified = (jws: string, from: string): SignedCheckpoint | AuditVerification => {
    try {
      return verifyCheckpoint(jws, keys);
    } catch (err) {
      return {
        ok: false,
        entries: 0,
        broken_id: 0,
        reason: "checkpoint_forged",
        message: `the checkpoint ${from} is forged: ${(err as Error).message}`,
      };
    }
  };
  // Another authority on the same database signs with its own key: its checkpoints are its to hold.
  const stored = await store.checkpoints(keyring.keys.map((k) => k.kid));
  let newestStored: number | undefined;
  for (const jws of stored) {
    const checkpoint = verified(jws, "in the database");
    if ("ok" in checkpoint) return { verification: checkpoint, stored: stored.length };
    held.push({
      size: checkpoint.size,
      head: checkpoint.head,
      from: `in the database, signed at ${new Date(checkpoint.at).toISOString()}`,
    });
    newestStored = checkpoint.size;
  }
  const path = options.checkpoint ?? checkpointFile(ctx.dataDir);
  const text = readCheckpointFile(path);
  if (text === undefined && options.checkpoint !== undefined) {
    throw new CountersignError("usage_error", "cli", `no checkpoint file at ${path}`, { details: { path } });
  }
  let outside: AuditLogCheck["outside"];
  if (text !== undefined) {
    const checkpoint = verified(text, `in ${path}`);
    if ("ok" in checkpoint) return { verification: checkpoint, stored: stored.length };
    held.push({
      size: checkpoint.size,
      head: checkpoint.head,
      from: `in ${path}, signed at ${new Date(checkpoint.at).toISOString()}`,
    });
    outside = { from: path, size: checkpoint.size };
  }
  const verification = await store.verifyAuditChain(held);
  return {
    verification,
    stored: stored.length,
    ...(newestStored === undefined ? {} : { newestStored }),
    ...(outside === undefined ? {} : { outside }),
  };
}

/**
 * `audit checkpoint`: the newest checkpoint in the database, once its signature verifies; undefined for a chain never
 * signed.
 */
export async function newestAuditCheckpoint(ctx: AppContext): Promise<SignedCheckpoint | undefined> {
  const store = await ctx.store();
  const keyring = await ctx.keys.keyring(ctx.now());
  const jws = await store.newestCheckpoint(keyring.keys.map((k) => k.kid));
  if (jws === undefined) return undefined;
  return verifyCheckpoint(jws, checkpointKeys(keyring.keys));
}
