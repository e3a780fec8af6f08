import type { AuditEntry, AuditType } from "../model/index.js";
import type { Json } from "../model/index.js";
import type { RequestStatus, StoreEvent } from "../model/index.js";
import { canonicalDetails, entryHashOf } from "./audit-chain.js";
import type { Driver, SqlValue, Tx, WriteOptions } from "./driver.js";
import { leftToCommit } from "./issued-statements.js";
import type { ReadCache } from "./read-cache.js";

/** For the changes that must survive a power cut: see the SQLite driver. */
export const DURABLE: WriteOptions = { durable: true };

export interface ChainHead {
  id: number;
  hash: string;
}

export interface StoreContext {
  driver: Driver;
  now: () => number; // ms since the epoch
  reads: ReadCache; // tokens and remembered rules, while nothing changed them
  /**
   * The chain head as this process's last change left it: a guess (another process may have moved it since), never
   * trusted unchecked.
   */
  head?: ChainHead;
}

export interface ChangeOptions extends WriteOptions {
  /**
   * PostgreSQL: build on this head without reading it. The transaction's first statement checks,
   * under the head's lock, that the chain still ends there, and fails with HEAD_MOVED otherwise
   * (nothing of the change is committed); so a change whose body awaits no read is one round trip.
   */
  expectHead?: ChainHead;
  /**
   * Sign the head the change leaves (a checkpoint, see checkpoints.ts), stored in the same
   * transaction: whoever sees the change committed sees its checkpoint too.
   */
  checkpoint?: CheckpointSigner;
}

/** The JWS of a checkpoint of the chain: `size` entries, the last with hash `head`, at `at` (ms). */
export type CheckpointSigner = {
  kid: string;
  sign: (checkpoint: { size: number; head: string; at: number }) => string;
};

/**
 * The SQLSTATE of a change built on a chain head that another change has moved since (its function is in
 * migrations.ts).
 */
export const HEAD_MOVED = "CS001";

export interface AuditInput {
  type: AuditType;
  request_id: string | null;
  actor: string | null;
  details: Record<string, Json>;
}

/** A state change in progress: one transaction holding the chain head. */
export interface Change {
  tx: Tx;
  now: number;
  /** Append the entry that records this change; it commits with it or not at all. */
  audit(input: AuditInput): Promise<AuditEntry>;
  /** Publish a change event for the approver UI, under the id of the entry that recorded it. */
  event(entry: AuditEntry, type: StoreEvent["type"], status: RequestStatus): Promise<void>;
}

/**
 * Run `fn` as one transaction that first locks the audit chain head. Every writer takes that
 * lock first, so writes are serialised across processes: the chain never forks, ids follow
 * commit order (an events reader resuming after id N misses nothing), and no two writers
 * deadlock on each other's rows.
 */
export function change<T>(ctx: StoreContext, fn: (c: Change) => Promise<T>, options: ChangeOptions = {}): Promise<T> {
  let end: ChainHead | undefined;
  const committed = ctx.driver.write(async (tx) => {
    const head = options.expectHead === undefined ? readHead(ctx, tx) : expectHead(tx, options.expectHead);
    leftToCommit(head);
    const now = ctx.now();
    // Entries and events are written together at the end (one statement each per transaction):
    // nothing reads them back before the commit, and each round trip counts on PostgreSQL.
    const entries: SqlValue[][] = [];
    const events: SqlValue[][] = [];
    const result = await fn({
      tx,
      now,
      async audit(input) {
        const at = await head;
        // The details are stored as the canonical text the hash covers: one serialization per entry.
        const details = canonicalDetails(input.details);
        const id = at.id + 1;
        const hash = entryHashOf(
          { id, at: now, type: input.type, request_id: input.request_id, actor: input.actor, prev_hash: at.hash },
          details,
        );
        const entry: AuditEntry = {
          id,
          at: now,
          type: input.type,
          request_id: input.request_id,
          actor: input.actor,
          details: input.details,
          prev_hash: at.hash,
          hash,
        };
        entries.push([
          entry.id,
          entry.at,
          entry.type,
          entry.request_id,
          entry.actor,
          details,
          entry.prev_hash,
          entry.hash,
        ]);
        at.id = entry.id;
        at.hash = entry.hash;
        return entry;
      },
      async event(entry, type, status) {
        if (entry.request_id === null) throw new Error("a change event needs a request");
        events.push([entry.id, type, entry.request_id, status, entry.at]);
      },
    });
    const last = await head;
    end = { id: last.id, hash: last.hash };
    // Issued together, in this order, and left to the driver, which sends COMMIT behind them.
    leftToCommit(
      tx.insert("audit (id, at, type, request_id, actor, details, prev_hash, hash)", entries),
      tx.insert("events (id, type, request_id, status, at)", events),
      // the head moves once per transaction, to the last entry it appended
      last.id === last.start
        ? undefined
        : tx.run("UPDATE audit_head SET last_id = ?, last_hash = ? WHERE one = 1", [last.id, last.hash]),
      options.checkpoint === undefined || last.id === last.start
        ? undefined
        : recordCheckpointIn(tx, options.checkpoint, { size: last.id, head: last.hash, at: now }),
      events.length > 0 ? tx.notify() : undefined,
    );
    return result;
  }, options);
  // The next change of this process may build on where this one left the chain (expectHead).
  return committed.then(
    (result) => ((ctx.head = end), result),
    (err: unknown) => {
      ctx.head = undefined;
      throw err;
    },
  );
}

type HeadInProgress = ChainHead & { start: number };

/**
 * The head, read under its lock. Not awaited by change(): the body's first statements run after
 * it (holding the lock) but are sent with it, in one round trip on PostgreSQL; the first entry
 * waits for it.
 */
function readHead(ctx: StoreContext, tx: Tx): Promise<HeadInProgress> {
  // SQLite: BEGIN IMMEDIATE holds the only write lock
  const lock = ctx.driver.dialect === "postgres" ? " FOR UPDATE" : "";
  return tx.all(`SELECT last_id, last_hash FROM audit_head WHERE one = 1${lock}`).then((rows) => {
    const row = rows[0];
    if (row === undefined) throw new Error("the audit chain head is missing");
    return { start: Number(row.last_id), id: Number(row.last_id), hash: String(row.last_hash) };
  });
}

/**
 * `expected` at once; the statement that locks the head and checks it is left to the commit, which it fails with
 * HEAD_MOVED.
 */
function expectHead(tx: Tx, expected: ChainHead): Promise<HeadInProgress> {
  leftToCommit(tx.all("SELECT countersign_expect_head(?, ?)", [expected.id, expected.hash]));
  return Promise.resolve({ start: expected.id, ...expected });
}

function recordCheckpointIn(
  tx: Tx,
  signer: CheckpointSigner,
  checkpoint: { size: number; head: string; at: number },
): Promise<number> {
  return tx.run(
    "INSERT INTO audit_checkpoints (size, kid, head, at, jws) VALUES (?, ?, ?, ?, ?) ON CONFLICT (size, kid) DO NOTHING",
    [checkpoint.size, signer.kid, checkpoint.head, checkpoint.at, signer.sign(checkpoint)],
  );
}
