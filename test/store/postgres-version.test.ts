// PostgreSQL's change counter for cached reads: every caller gets a read of it sent after it
// called, so that a change committed before the call is always seen; the callers of one
// event-loop turn share that read.
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/index.js";
import { versionReader } from "../../src/store/postgres-version.js";
import { newDatabase, opener, rawSql, submission } from "./fixtures.js";

/** A real pool whose version reads are counted, and whose answers can be held back (a read in flight). */
function gatedPool(database: string): { pool: pg.Pool; reads: () => number; hold(): () => void; end(): Promise<void> } {
  const real = new pg.Pool({ connectionString: database });
  let reads = 0;
  let gate: Promise<void> | undefined;
  const pool = {
    query: (query: pg.QueryConfig) => {
      reads++;
      const held = gate;
      const result = real.query(query);
      return held === undefined ? result : result.then(async (r) => (await held, r));
    },
  } as unknown as pg.Pool;
  return {
    pool,
    reads: () => reads,
    hold() {
      let open!: () => void;
      gate = new Promise((resolve) => (open = resolve));
      return () => ((gate = undefined), open());
    },
    end: () => real.end(),
  };
}

describe("the PostgreSQL reads version", () => {
  const stores = opener();
  afterAll(() => stores.closeAll());

  it("moves with every change to tokens or remembered rules, from any connection, and with nothing else", async () => {
    const database = await newDatabase("postgres");
    const store = await stores.open(database);
    const p = gatedPool(database);
    const version = versionReader(p.pool);
    try {
      const start = await version(true);
      await store.addToken("agent");
      const added = await version(true);
      expect(added).not.toBe(start);
      const submitted = await store.submit(submission("agent"));
      expect(submitted.ok).toBe(true);
      expect(await version(true)).toBe(added); // a submission changes neither
      await rawSql(database, "DELETE FROM remembered_rules");
      const deleted = await version(true);
      expect(deleted).not.toBe(added);
      await rawSql(database, "TRUNCATE tokens");
      expect(await version(true)).not.toBe(deleted);
    } finally {
      await p.end();
    }
  });

  /** A database with a token, a store on it, and a version reader over a gated pool of its own. */
  async function withToken(): Promise<{
    database: string;
    store: Store;
    p: ReturnType<typeof gatedPool>;
    version: ReturnType<typeof versionReader>;
  }> {
    const database = await newDatabase("postgres");
    const store = await stores.open(database);
    await store.addToken("agent");
    const p = gatedPool(database);
    return { database, store, p, version: versionReader(p.pool) };
  }

  it("serves the callers of one turn with one read, and never hands a caller a read sent before it called", async () => {
    const { database, p, version } = await withToken();
    try {
      const together = await Promise.all([version(true), version(true), version(true)]);
      expect(new Set(together).size).toBe(1);
      expect(p.reads()).toBe(1);

      const release = p.hold();
      const early = version(true); // its read is sent, answered by the database, and held here
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(p.reads()).toBe(2);
      await rawSql(database, "UPDATE tokens SET revoked_at = 1"); // committed while that read is in flight
      const late = version(true);
      release();
      expect(await early).toBe(together[0]);
      expect(await late).not.toBe(together[0]); // a read of its own, sent after the revocation
      expect(p.reads()).toBe(3);
    } finally {
      await p.end();
    }
  });

  it("answers a caller that need not be fresh with the read answered in this turn, and reads again in the next", async () => {
    const { store, p, version } = await withToken();
    try {
      expect(typeof version(false)).not.toBe("string"); // nothing answered yet: a read of its own
      const first = await version(false);
      expect(p.reads()).toBe(1);
      const fresh = version(true);
      const answered = await fresh;
      // in the turn its answer came: the same value, at once, with no read of its own
      expect(version(false)).toBe(answered);
      expect(p.reads()).toBe(2);
      expect(answered).toBe(first);
      await new Promise((resolve) => setImmediate(resolve));
      await store.revokeToken("agent");
      const later = version(false); // a later turn: asked of the database again, and sees the revocation
      expect(typeof later).not.toBe("string");
      expect(await later).not.toBe(answered);
      expect(p.reads()).toBe(3);
    } finally {
      await p.end();
    }
  });

  it("fails closed: a read that cannot be made is a store_error for every caller waiting on it", async () => {
    const database = await newDatabase("postgres");
    await stores.open(database);
    const p = gatedPool(database);
    await p.end();
    const version = versionReader(p.pool);
    const results = await Promise.allSettled([version(true), version(true)]);
    for (const r of results) expect(r).toMatchObject({ status: "rejected", reason: { class: "store_error" } });
  });
});
