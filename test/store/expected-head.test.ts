// PostgreSQL: a batch of submissions is first committed in one round trip, built on the chain
// head this process last left and on its tokens being active. The database checks both under
// the head's lock; when another process moved the head or a token was revoked meanwhile, nothing
// of that attempt is committed and the batch goes again the long way — the chain stays one
// chain, and a revoked token is refused as before.
import { afterAll, describe, expect, it } from "vitest";
import { openPostgresDriver, storeOver, type Driver, type Store } from "../../src/store/index.js";
import { newDatabase, opener, rawSql, submission } from "./fixtures.js";

/** A store whose transactions' statements are recorded, one list per transaction. */
async function recordingStore(database: string): Promise<{ store: Store; transactions: string[][] }> {
  const driver = await openPostgresDriver(database);
  const transactions: string[][] = [];
  const recording: Driver = {
    ...driver,
    write: (fn, options) =>
      driver.write((tx) => {
        const sql: string[] = [];
        transactions.push(sql);
        return fn({
          ...tx,
          all: (text, params) => (sql.push(text), tx.all(text, params)),
          run: (text, params) => (sql.push(text), tx.run(text, params)),
        });
      }, options),
  };
  return { store: await storeOver(recording), transactions };
}

const readsHead = (sql: string[]): boolean =>
  sql.some((s) => s.startsWith("SELECT last_id, last_hash FROM audit_head"));
const expectsHead = (sql: string[]): boolean => sql.some((s) => s.startsWith("SELECT countersign_expect_head("));

describe("submissions built on the expected chain head (postgres)", () => {
  const stores = opener();
  afterAll(() => stores.closeAll());

  it("goes the short way after a change of its own, and the long way when another process moved the head", async () => {
    const database = await newDatabase("postgres");
    const { store, transactions } = await recordingStore(database);
    const other = await stores.open(database);
    try {
      await store.addToken("agent");
      expect((await store.submit(submission("agent", "auto_approved"))).ok).toBe(true);
      const last = transactions.at(-1)!;
      expect(expectsHead(last) && !readsHead(last)).toBe(true); // addToken left the head here
      expect(last.some((s) => s.startsWith("SELECT revoked_at FROM tokens"))).toBe(false);

      expect((await other.submit(submission("agent"))).ok).toBe(true); // another process appends to the chain
      const before = transactions.length;
      const moved = await store.submit(submission("agent", "auto_approved"));
      expect(moved.ok).toBe(true);
      const attempts = transactions.slice(before);
      expect(attempts).toHaveLength(2); // refused by the database, then read under the lock
      expect(expectsHead(attempts[0]!)).toBe(true);
      expect(readsHead(attempts[1]!)).toBe(true);

      expect((await store.submit(submission("agent"))).ok).toBe(true);
      expect(expectsHead(transactions.at(-1)!)).toBe(true); // short again
      expect(await store.verifyAuditChain()).toMatchObject({ ok: true, entries: 1 + 3 + 2 + 3 + 2 }); // the token; submitted, analyzed (and decided) for each submission
      const ids = (await store.list()).requests.map((r) => r.id);
      expect(ids).toHaveLength(4);
    } finally {
      await store.close();
    }
  });

  it("a token revoked behind the process's back is refused: the short attempt fails, the long way answers token_inactive", async () => {
    const database = await newDatabase("postgres");
    const { store, transactions } = await recordingStore(database);
    try {
      await store.addToken("agent");
      await store.addToken("other");
      expect((await store.submit(submission("agent"))).ok).toBe(true);
      await rawSql(database, "UPDATE tokens SET revoked_at = 1 WHERE name = 'agent'"); // the head stays where it was
      const before = transactions.length;
      const [revoked, fine] = await Promise.all([
        store.submit(submission("agent", "auto_approved")),
        store.submit(submission("other")),
      ]);
      expect(revoked).toEqual({ ok: false, reason: "token_inactive" });
      expect(fine.ok).toBe(true);
      expect(transactions.length - before).toBe(2);
      expect((await store.list()).requests).toHaveLength(2); // nothing of the revoked token's submission, nor of the failed attempt
      expect(await store.verifyAuditChain()).toMatchObject({ ok: true });
    } finally {
      await store.close();
    }
  });
});
