import pg from "pg";
import type { Driver, Queryer, Row, SqlValue } from "./driver.js";
import { versionReader } from "./postgres-version.js";
import { asStoreError } from "./store-error.js";

const CHANNEL = "countersign_events";
const INT8 = 20;

/** Our BIGINT columns hold ids and millisecond times, well inside 2^53: read them as numbers. */
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** `?` placeholders become `$1, $2, …` (our SQL has no `?` inside literals). */
const numbered = new Map<string, string>();
function toPostgres(sql: string): string {
  let text = numbered.get(sql);
  if (text === undefined) {
    let n = 0;
    text = sql.replace(/\?/g, () => `$${++n}`);
    numbered.set(sql, text);
  }
  return text;
}

function queryer(client: pg.Pool | pg.PoolClient): Queryer {
  return {
    async all(sql: string, params: readonly SqlValue[] = []): Promise<Row[]> {
      return (await client.query(toPostgres(sql), params as SqlValue[])).rows as Row[];
    },
    async run(sql: string, params: readonly SqlValue[] = []): Promise<number> {
      return (await client.query(toPostgres(sql), params as SqlValue[])).rowCount ?? 0;
    },
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
  const config = { connectionString: url, types, connectionTimeoutMillis: 10_000 };
  const pool = new pg.Pool({ ...config, max: options.max ?? 10 });
  pool.on("error", () => undefined); // an idle client died: the pool drops it, the next query reconnects
  try {
    await pool.query("SELECT 1");
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw asStoreError(`cannot connect to the PostgreSQL store ${redactUrl(url)}`, err);
  }
  const rings = new Set<() => void>();
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
    async write(fn) {
      let client: pg.PoolClient | undefined;
      let broken: unknown;
      try {
        client = await pool.connect();
        await client.query("BEGIN");
        const c = client;
        const result = await fn({ ...queryer(c), notify: async () => void (await c.query(`NOTIFY ${CHANNEL}`)) });
        await client.query("COMMIT");
        return result;
      } catch (err) {
        if (client !== undefined) await client.query("ROLLBACK").catch((e: unknown) => (broken = e));
        throw asStoreError("store write failed", err);
      } finally {
        client?.release(broken instanceof Error ? broken : undefined);
      }
    },
    version: versionReader(pool),
    async listen(onRing) {
      rings.add(onRing);
      const current = (listener ??= startListener(config, () => {
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

function startListener(config: pg.ClientConfig, ring: () => void): Listener {
  let closed = false;
  let current: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    const client = new pg.Client(config);
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
