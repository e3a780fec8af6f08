import Database from "better-sqlite3";
import { realpathSync } from "node:fs";
import type { Driver, Queryer, Row, SqlValue } from "./driver.js";
import { allInOrder } from "./all-in-order.js";
import { issuedStatements } from "./issued-statements.js";
import { asStoreError } from "./store-error.js";
import { rowValues, valuesSql } from "./values-sql.js";
import { startWalCheckpointer, type WalCheckpointer } from "./wal-checkpointer.js";

/** Per file, shared by every connection this process has to it: the tail of its queue of calls, its listeners. */
const queues = new Map<string, Promise<void>>();
const ringsOf = new Map<string, Set<() => void>>();

/**
 * In WAL mode, synchronous=NORMAL commits without an fsync: a commit survives the process being
 * killed (the WAL is in the OS's hands), and a power cut may lose the last commits but never
 * corrupts the database. The changes whose loss would let something happen twice — a receipt
 * redeemed, a login link used, a token revoked, a rule forgotten — commit with FULL, which
 * syncs the WAL, and with it every commit before them.
 */
const SYNC_NORMAL = "NORMAL";
const SYNC_DURABLE = "FULL";

/**
 * A connection that keeps writing hands its checkpoints to a thread of its own (wal-checkpointer.ts)
 * after this many transactions, and checkpoints itself only if the WAL outgrows the larger limit
 * (the thread fell behind or stopped). SQLite's own default is 1000 pages.
 */
export const BACKGROUND_CHECKPOINTS_AFTER = 64;
const CHECKPOINT_INTERVAL_MS = 200;
const WAL_PAGES_OWN = 1000;
const WAL_PAGES_FALLBACK = 10_000;

/** Rows per INSERT: well inside SQLite's limit on bound parameters. */
const ROWS_PER_INSERT = 500;

/** Tx.insert: multi-row INSERT … VALUES statements, as few as the parameter limit allows, all issued at the call. */
async function insertValues(q: Queryer, into: string, rows: readonly SqlValue[][], returning?: string): Promise<Row[]> {
  const statements: Promise<Row[]>[] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const end = Math.min(rows.length, i + ROWS_PER_INSERT);
    const sql = valuesSql(into, end - i, rows[i]!.length, returning);
    statements.push(q.all(sql, rowValues(rows, i, end)));
  }
  return (await allInOrder(statements)).flat();
}

function openFile(path: string): Database.Database {
  let db: Database.Database | undefined;
  try {
    db = new Database(path);
    db.pragma("busy_timeout = 10000");
    db.pragma("journal_mode = WAL");
    db.pragma(`synchronous = ${SYNC_NORMAL}`);
    db.pragma("foreign_keys = ON");
    return db;
  } catch (err) {
    db?.close();
    throw asStoreError(`cannot open the SQLite store ${path}`, err);
  }
}

/**
 * SQLite through better-sqlite3: WAL so that readers never wait for the writer, synchronous as
 * above, and BEGIN IMMEDIATE so that a transaction
 * takes the one write lock up front (two processes on one file wait for each other, up to
 * busy_timeout, instead of failing halfway). Calls are serialised per file in this process: a
 * transaction spans awaits, so one connection must never mix two of them, and a second
 * connection to the same file in this process would wait for the lock synchronously, blocking
 * the very event loop that has to finish the first transaction.
 */
export function openSqliteDriver(path: string): Driver {
  const db = openFile(path);
  const statements = new Map<string, Database.Statement>();
  const prepare = (sql: string): Database.Statement => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = db.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
  const q: Queryer = {
    async all(sql: string, params: readonly SqlValue[] = []): Promise<Row[]> {
      const statement = prepare(sql);
      if (statement.reader) return statement.all(...params) as Row[];
      statement.run(...params);
      return [];
    },
    async run(sql: string, params: readonly SqlValue[] = []): Promise<number> {
      return prepare(sql).run(...params).changes;
    },
  };

  const file = realpathSync(path); // one queue per file, however it is named
  // data_version changes when another connection (another process, the CLI) commits; our own
  // commits are counted here, those that keep cached reads aside.
  const dataVersion = db.prepare("PRAGMA data_version").pluck();
  // Looked up once per turn of the event loop unless asked fresh: each lookup is a read
  // transaction (two file locks), and the token check (fresh) and the rules of one submission
  // asked twice per request.
  let lastVersion: number | undefined;
  const otherChanges = (fresh: boolean): number => {
    if (lastVersion === undefined) setImmediate(() => (lastVersion = undefined));
    if (fresh || lastVersion === undefined) lastVersion = dataVersion.get() as number;
    return lastVersion;
  };
  let ownChanges = 0;
  let writes = 0;
  let checkpointer: WalCheckpointer | undefined;
  const committed = (): void => {
    if (++writes !== BACKGROUND_CHECKPOINTS_AFTER) return;
    checkpointer = startWalCheckpointer(file, CHECKPOINT_INTERVAL_MS, () => {
      if (db.open) db.pragma(`wal_autocheckpoint = ${WAL_PAGES_OWN}`);
    });
    db.pragma(`wal_autocheckpoint = ${WAL_PAGES_FALLBACK}`);
  };
  const serially = <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    const next = (queues.get(file) ?? Promise.resolve()).then(fn).catch((err: unknown) => {
      throw asStoreError(what, err);
    });
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    queues.set(file, settled);
    void settled.then(() => {
      if (queues.get(file) === settled) queues.delete(file);
    });
    return next;
  };

  return {
    dialect: "sqlite",
    read: (fn) => serially("store read failed", () => fn(q)),
    write: (fn, options = {}) =>
      serially("store write failed", async () => {
        let rang = false;
        if (options.durable === true) db.pragma(`synchronous = ${SYNC_DURABLE}`);
        db.exec("BEGIN IMMEDIATE");
        try {
          const statements = issuedStatements(q);
          const tx = statements.queryer;
          const result = await fn({
            ...tx,
            notify: async () => void (rang = true),
            insert: (into, rows, returning) => insertValues(tx, into, rows, returning),
          });
          await statements.end(); // they ran when issued; one the body did not await may have failed
          db.exec("COMMIT");
          if (options.keepsCachedReads !== true) ownChanges++;
          committed();
          if (rang) for (const ring of ringsOf.get(file) ?? []) queueMicrotask(ring);
          return result;
        } catch (err) {
          try {
            if (db.inTransaction) db.exec("ROLLBACK");
          } catch {
            // the original error is the one to report; SQLite has rolled back or will on close
          }
          throw err;
        } finally {
          if (options.durable === true) db.pragma(`synchronous = ${SYNC_NORMAL}`);
        }
      }),
    async listen(onRing) {
      const rings = ringsOf.get(file) ?? new Set<() => void>();
      ringsOf.set(file, rings);
      rings.add(onRing);
      return async () => {
        rings.delete(onRing);
        if (rings.size === 0 && ringsOf.get(file) === rings) ringsOf.delete(file);
      };
    },
    version: (fresh = false) => (db.open ? `${otherChanges(fresh)}:${ownChanges}` : undefined),
    close: () =>
      serially("closing the store failed", async () => {
        await checkpointer?.stop();
        db.close();
      }),
  };
}
