import Database from "better-sqlite3";
import type { Driver, Queryer, Row, SqlValue } from "./driver.js";
import { asStoreError } from "./store-error.js";

/**
 * SQLite through better-sqlite3: WAL so that readers never wait for the writer, synchronous=FULL
 * so that a committed redemption survives a power cut, and BEGIN IMMEDIATE so that a transaction
 * takes the one write lock up front (two processes on one file wait for each other, up to
 * busy_timeout, instead of failing halfway). Calls are serialised in this process, because a
 * transaction spans awaits and one connection must never mix two of them.
 */
export function openSqliteDriver(path: string): Driver {
  let db: Database.Database;
  try {
    db = new Database(path);
    db.pragma("busy_timeout = 10000");
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = FULL");
    db.pragma("foreign_keys = ON");
  } catch (err) {
    throw asStoreError(`cannot open the SQLite store ${path}`, err);
  }
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

  let queue: Promise<unknown> = Promise.resolve();
  const serially = <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    const next = queue.then(fn).catch((err: unknown) => {
      throw asStoreError(what, err);
    });
    queue = next.catch(() => undefined);
    return next;
  };
  const rings = new Set<() => void>();

  return {
    dialect: "sqlite",
    read: (fn) => serially("store read failed", () => fn(q)),
    write: (fn) =>
      serially("store write failed", async () => {
        let rang = false;
        db.exec("BEGIN IMMEDIATE");
        try {
          const result = await fn({ ...q, notify: async () => void (rang = true) });
          db.exec("COMMIT");
          if (rang) for (const ring of rings) queueMicrotask(ring);
          return result;
        } catch (err) {
          if (db.inTransaction) db.exec("ROLLBACK");
          throw err;
        }
      }),
    async listen(onRing) {
      rings.add(onRing);
      return async () => void rings.delete(onRing);
    },
    async close() {
      await queue;
      db.close();
    },
  };
}
