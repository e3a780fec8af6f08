import { CountersignError } from "../model/index.js";
import { checkpointKeys, signCheckpoint, verifyCheckpoint, type SignedCheckpoint } from "../receipt/index.js";
import { checkpointFile, readCheckpointFile, writeCheckpointFile, type Store } from "../store/index.js";
import type { AppContext } from "./context.js";

/** Per store: the signing waiting to start, which every caller arriving before it starts shares. */
const queued = new WeakMap<Store, { next?: Promise<SignedCheckpoint | undefined>; tail: Promise<unknown> }>();

/**
 * Sign the chain head as it is now with the authority's active key, keep it in the database and,
 * when it is newer than the one there, in the checkpoint file of the data directory. Made on the
 * authority's sweep, which covers the policy's decisions (they come with their receipt, and a
 * checkpoint per submission would cost the hot path a signature and a file sync), and after a
 * person's decision, whose own transaction signed its head already: this then only keeps the file. One signing at a
 * time per store: callers that
 * arrive while one runs share the next one, which sees every change they made. Undefined for an
 * empty chain.
 */
export async function checkpointAuditChain(ctx: AppContext): Promise<SignedCheckpoint | undefined> {
  const store = await ctx.store();
  let queue = queued.get(store);
  if (queue === undefined) queued.set(store, (queue = { tail: Promise.resolve() }));
  if (queue.next !== undefined) return queue.next;
  const mine = queue;
  const next = mine.tail.then(() => {
    mine.next = undefined;
    return signHead(ctx, store);
  });
  mine.next = next;
  mine.tail = next.catch(() => undefined);
  return next;
}

async function signHead(ctx: AppContext, store: Store): Promise<SignedCheckpoint | undefined> {
  const head = await store.auditHead();
  if (head.id === 0) return undefined;
  const now = ctx.now();
  const keyring = await ctx.keys.keyring(now);
  const keys = checkpointKeys(keyring.keys);
  const newest = await store.newestCheckpoint(keyring.keys.map((k) => k.kid));
  // The head signed already: nothing changed since (the sweep finds this most of the time).
  const stored = newest === undefined ? undefined : verifiedOrUndefined(newest, keys);
  let checkpoint: SignedCheckpoint;
  if (stored?.size === head.id && stored.head === head.hash) {
    checkpoint = stored;
  } else {
    // Never sign over a stretch that does not verify: a head signed is a head vouched for.
    const since = await store.entryBetweenCheckpoints(head.id, stored, {
      size: head.id,
      head: head.hash,
      from: "the chain head",
    });
    if (!since.ok) {
      throw new CountersignError(
        "store_error",
        "store",
        `the audit chain does not verify since checkpoint ${stored?.size ?? 0}, so it is not signed: ${since.message}`,
        {
          details: { reason: "audit_chain_broken", since: stored?.size ?? 0 },
        },
      );
    }
    const signed = { size: head.id, head: head.hash, at: now.getTime() };
    checkpoint = { ...signed, kid: keyring.active.kid, jws: signCheckpoint(signed, keyring.active) };
  }
  if (checkpoint !== stored) await store.recordCheckpoint(checkpoint);
  keepOutside(checkpointFile(ctx.dataDir), checkpoint, keys);
  return checkpoint;
}

/**
 * Replace the file's checkpoint by `checkpoint` unless the file holds a larger one signed by us (another process got
 * further).
 */
function keepOutside(path: string, checkpoint: SignedCheckpoint, keys: ReturnType<typeof checkpointKeys>): void {
  const current = readCheckpointFile(path);
  if (current === checkpoint.jws) return;
  // a file that is not ours, or damaged, is replaced
  if (current !== undefined && (verifiedOrUndefined(current, keys)?.size ?? 0) > checkpoint.size) return;
  writeCheckpointFile(path, checkpoint.jws);
}

function verifiedOrUndefined(jws: string, keys: ReturnType<typeof checkpointKeys>): SignedCheckpoint | undefined {
  try {
    return verifyCheckpoint(jws, keys);
  } catch {
    return undefined;
  }
}

/**
 * checkpointAuditChain after a decision, which is recorded whatever happens here: a chain that
 * does not verify is left unsigned, and then the decision's receipt is refused and `audit verify`
 * names the break, where they are asked for.
 */
export async function checkpointAfterDecision(ctx: AppContext): Promise<void> {
  await checkpointAuditChain(ctx).catch(() => undefined);
}
