import type { AuditEntry, AuditType } from "../model/index.js";
import type { Json } from "../model/index.js";
import type { RequestStatus, StoreEvent } from "../model/index.js";
import { canonicalDetails, entryHashOf } from "./audit-chain.js";
import type { Driver, Row, SqlValue, Tx, WriteOptions } from "./driver.js";
import type { ReadCache } from "./read-cache.js";

/** For the changes that must survive a power cut: see the SQLite driver. */
export const DURABLE: WriteOptions = { durable: true };

export interface StoreContext {
  driver: Driver;
  now: () => number; // ms since the epoch
  reads: ReadCache; // tokens and remembered rules, while nothing changed them
}

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
export function change<T>(ctx: StoreContext, fn: (c: Change) => Promise<T>, options: WriteOptions = {}): Promise<T> {
  return ctx.driver.write(async (tx) => {
    const lock = ctx.driver.dialect === "postgres" ? " FOR UPDATE" : ""; // SQLite: BEGIN IMMEDIATE holds the only write lock
    const row = (await tx.all(`SELECT last_id, last_hash FROM audit_head WHERE one = 1${lock}`))[0];
    if (row === undefined) throw new Error("the audit chain head is missing");
    const head = { id: Number(row.last_id), hash: String(row.last_hash) };
    const start = head.id;
    const now = ctx.now();
    // Entries and events are written together at the end (one statement each per transaction):
    // nothing reads them back before the commit, and each round trip counts on PostgreSQL.
    const entries: SqlValue[][] = [];
    const events: SqlValue[][] = [];
    const result = await fn({
      tx,
      now,
      async audit(input) {
        // The details are stored as the canonical text the hash covers: one serialization per entry.
        const details = canonicalDetails(input.details);
        const id = head.id + 1;
        const hash = entryHashOf({ id, at: now, type: input.type, request_id: input.request_id, actor: input.actor, prev_hash: head.hash }, details);
        const entry: AuditEntry = { id, at: now, type: input.type, request_id: input.request_id, actor: input.actor, details: input.details, prev_hash: head.hash, hash };
        entries.push([entry.id, entry.at, entry.type, entry.request_id, entry.actor, details, entry.prev_hash, entry.hash]);
        head.id = entry.id;
        head.hash = entry.hash;
        return entry;
      },
      async event(entry, type, status) {
        if (entry.request_id === null) throw new Error("a change event needs a request");
        events.push([entry.id, type, entry.request_id, status, entry.at]);
      },
    });
    await insertRows(tx, "audit (id, at, type, request_id, actor, details, prev_hash, hash)", entries);
    await insertRows(tx, "events (id, type, request_id, status, at)", events);
    // the head moves once per transaction, to the last entry it appended
    if (head.id !== start) await tx.run("UPDATE audit_head SET last_id = ?, last_hash = ? WHERE one = 1", [head.id, head.hash]);
    if (events.length > 0) await tx.notify();
    return result;
  }, options);
}

/** Rows per INSERT: well inside SQLite's limit on bound parameters. */
const ROWS_PER_INSERT = 500;

/** The text of a multi-row INSERT, by table, row count and width: the same batch sizes come back, and the driver finds a prepared statement by its text. */
const insertTexts = new Map<string, string>();

function insertText(into: string, rows: number, width: number): string {
  const key = `${rows}:${width}:${into}`;
  let sql = insertTexts.get(key);
  if (sql === undefined) {
    const one = `(${new Array<string>(width).fill("?").join(", ")})`;
    sql = `INSERT INTO ${into} VALUES ${new Array<string>(rows).fill(one).join(", ")}`;
    insertTexts.set(key, sql);
  }
  return sql;
}

/**
 * Insert `rows` with as few statements as the parameter limit allows (each one a round trip on
 * PostgreSQL); `returning`: the columns to answer for every inserted row (in no promised order).
 */
export async function insertRows(tx: Tx, into: string, rows: SqlValue[][], returning?: string): Promise<Row[]> {
  const out: Row[] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const end = Math.min(rows.length, i + ROWS_PER_INSERT);
    const params: SqlValue[] = []; // a loop, not rows.flat(): flat's generic path cost more than the statement's binding
    for (let r = i; r < end; r++) for (const value of rows[r]!) params.push(value);
    const sql = insertText(into, end - i, rows[i]!.length);
    if (returning === undefined) await tx.run(sql, params);
    else out.push(...(await tx.all(`${sql} RETURNING ${returning}`, params)));
  }
  return out;
}
