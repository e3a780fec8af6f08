import type { Duplex } from "node:stream";
import type pg from "pg";
import type { Driver, Queryer, Row, SqlValue } from "./driver.js";
import { insertValues } from "./postgres-insert.js";
import { issuedStatements } from "./issued-statements.js";
import { versionReader } from "./postgres-version.js";
import { asStoreError } from "./store-error.js";

const CHANNEL = "countersign_events";
const INT8 = 20;

/** Our BIGINT columns hold ids and millisecond times, well inside 2^53: read them as numbers. */
function typesOf(driver: typeof pg): { getTypeParser: typeof pg.types.getTypeParser } {
  return {
    getTypeParser: ((oid: number, format?: "text" | "binary") =>
      oid === INT8
        ? (value: string) => Number(value)
        : driver.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
  };
}

/**
 * `?` placeholders become `$1, $2, …` (our SQL has no `?` inside literals). A statement with
 * parameters is prepared once per connection and reused by name: every such text is one of the
 * code's own (a fixed statement, or an INSERT of one of postgres-insert.ts's sizes), so they are
 * few, and the server parses and plans each once instead of at every call.
 */
const statements = new Map<string, { text: string; name: string | undefined }>();
function toPostgres(sql: string): { text: string; name: string | undefined } {
  let statement = statements.get(sql);
  if (statement === undefined) {
    let n = 0;
    const text = sql.replace(/\?/g, () => `$${++n}`);
    statement = { text, name: n > 0 ? `countersign_${statements.size}` : undefined };
    statements.set(sql, statement);
  }
  return statement;
}

function query(client: pg.Pool | pg.PoolClient, sql: string, params: readonly SqlValue[]): Promise<pg.QueryResult> {
  const { text, name } = toPostgres(sql);
  return client.query(
    name === undefined ? { text, values: params as SqlValue[] } : { name, text, values: params as SqlValue[] },
  );
}

function queryer(client: pg.Pool | pg.PoolClient, beforeEach?: () => void): Queryer {
  return {
    async all(sql: string, params: readonly SqlValue[] = []): Promise<Row[]> {
      beforeEach?.();
      return (await query(client, sql, params)).rows as Row[];
    },
    async run(sql: string, params: readonly SqlValue[] = []): Promise<number> {
      beforeEach?.();
      return (await query(client, sql, params)).rowCount ?? 0;
    },
  };
}

/**
 * Call before each statement written to `socket`: the statements a transaction issues together
 * (in one run of the microtask queue) leave in one write instead of one each. On loopback every
 * write pays the kernel's delivery to the server and a wake-up of its backend: one write per
 * burst lowers the group commit's process CPU per submission (BENCHMARKS.md).
 */
function corkEachBurst(socket: Duplex): () => void {
  let corked = false;
  return () => {
    if (corked) return;
    corked = true;
    socket.cork();
    process.nextTick(() => {
      corked = false;
      socket.uncork();
    });
  };
}

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password !== "") u.password = "***";
    return u.toString();
  } catch {
    return "(unparsable database URL)";
  }
}

/**
 * PostgreSQL through a `pg` pool. A transaction is one pooled client from BEGIN to COMMIT;
 * NOTIFY inside it is delivered at commit and never on rollback. Listening uses one dedicated
 * connection, reconnected when it drops (a ring after reconnecting makes listeners catch up).
 */
export async function openPostgresDriver(url: string, options: { max?: number } = {}): Promise<Driver> {
  // loaded here, not with the module: a SQLite authority starts without it
  const { default: driver } = await import("pg");
  const config = { connectionString: url, types: typesOf(driver), connectionTimeoutMillis: 10_000 };
  // pipeline: statements issued together (BEGIN and the first ones, Tx.insert's, the last ones and COMMIT) share one
  // round trip
  const pool = new driver.Pool({ ...config, pipeline: true, max: options.max ?? 10 });
  pool.on("error", () => undefined); // an idle client died: the pool drops it, the next query reconnects
  try {
    await pool.query("SELECT 1");
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw asStoreError(`cannot connect to the PostgreSQL store ${redactUrl(url)}`, err);
  }
  const rings = new Set<() => void>();
  const readVersion = versionReader(pool);
  let ownChanges = 0; // committed transactions that may have changed a cached read
  let listener: Listener | undefined;

  return {
    dialect: "postgres",
    async read(fn) {
      try {
        return await fn(queryer(pool));
      } catch (err) {
        throw asStoreError("store read failed", err);
      }
    },
    async write(fn, options = {}) {
      let client: pg.PoolClient | undefined;
      let broken: unknown;
      try {
        client = await pool.connect();
        const burst = corkEachBurst(client.connection.stream);
        const statements = issuedStatements(queryer(client, burst));
        const q = statements.queryer;
        void q.run("BEGIN"); // not awaited: the transaction's first statements follow it in the same round trip
        const result = await fn({
          ...q,
          notify: async () => void (await q.run(`NOTIFY ${CHANNEL}`)),
          insert: (into, rows, returning) => insertValues(q, into, rows, returning),
        });
        const issued = statements.end();
        // Behind the statements still in flight: after a failed one PostgreSQL answers it ROLLBACK.
        burst();
        const commit = client.query("COMMIT");
        commit.catch(() => undefined); // awaited below, once the statements' outcome is known
        await issued;
        const { command } = await commit;
        if (command !== "COMMIT") throw new Error(`the transaction was not committed (${command})`);
        if (options.keepsCachedReads !== true) ownChanges++;
        return result;
      } catch (err) {
        if (client !== undefined) await client.query("ROLLBACK").catch((e: unknown) => (broken = e));
        throw asStoreError("store write failed", err);
      } finally {
        client?.release(broken instanceof Error ? broken : undefined);
      }
    },
    version: (fresh = false) => {
      const version = readVersion(fresh);
      // this process's own commits count at once, even against a read answered before them
      return typeof version === "string" ? `${version}:${ownChanges}` : version.then((v) => `${v}:${ownChanges}`);
    },
    async listen(onRing) {
      rings.add(onRing);
      const current = (listener ??= startListener(driver.Client, config, () => {
        for (const ring of rings) ring();
      }));
      try {
        await current.ready;
      } catch (err) {
        rings.delete(onRing);
        if (rings.size === 0 && listener === current) {
          listener = undefined;
          await current.close();
        }
        throw err;
      }
      return async () => {
        rings.delete(onRing);
        if (rings.size === 0 && listener !== undefined) {
          const l = listener;
          listener = undefined;
          await l.close();
        }
      };
    },
    async close() {
      await listener?.close();
      listener = undefined;
      await pool.end();
    },
  };
}

interface Listener {
  ready: Promise<void>;
  close(): Promise<void>;
}

function startListener(Client: typeof pg.Client, config: pg.ClientConfig, ring: () => void): Listener {
  let closed = false;
  let current: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    const client = new Client(config);
    current = client;
    let lost = false;
    const onLost = (): void => {
      if (lost || closed) return;
      lost = true;
      client.end().catch(() => undefined);
      retry = setTimeout(() => void connect().then(ring, () => undefined), 500);
    };
    client.on("error", onLost);
    client.on("end", onLost);
    client.on("notification", () => ring());
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (err) {
      onLost();
      throw asStoreError("cannot listen for store changes", err);
    }
  };
  return {
    ready: connect(),
    async close() {
      closed = true;
      clearTimeout(retry);
      await current?.end().catch(() => undefined);
    },
  };
}
