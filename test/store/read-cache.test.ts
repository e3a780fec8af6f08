// Tokens and remembered rules are answered from memory only while nothing committed since they
// were read: a change through this store, another store on the same file, or another connection
// (the CLI's) is seen by the very next read.
import { afterAll, describe, expect, it } from "vitest";
import { openPostgresDriver, openSqliteDriver, storeOver, type Driver, type Store } from "../../src/store/index.js";
import { DIALECTS, newDatabase, opener, rawSql, submission, type DialectName } from "./fixtures.js";

const RULE = {
  id: "remembered.email.send_email.cache",
  decision: "allow",
  op: "email.send_email",
  when: { count: { max: 1 } },
};

/** After the I/O and immediates of this turn of the event loop. */
// A later turn of the event loop: past a timer and then a check phase, so that every setImmediate
// queued before (the store's end of its turn) has run, whichever phase this is called from.
const nextTurn = (): Promise<void> => new Promise((resolve) => setTimeout(() => setImmediate(resolve), 1));

/** A store whose reads are counted (PostgreSQL's version reads aside: they are no `read`). */
async function countingStore(dialect: DialectName, database: string): Promise<{ store: Store; reads: () => number }> {
  const driver = dialect === "postgres" ? await openPostgresDriver(database) : openSqliteDriver(database);
  let reads = 0;
  const counted: Driver = { ...driver, read: (fn) => (reads++, driver.read(fn)) };
  return { store: await storeOver(counted), reads: () => reads };
}

describe.each(DIALECTS)("the store's read cache (%s)", (dialect) => {
  const stores = opener();
  afterAll(() => stores.closeAll());

  it("reads a token once while nothing commits, and again after any change that may touch it", async () => {
    const database = await newDatabase(dialect);
    const { store, reads } = await countingStore(dialect, database);
    try {
      const { token } = await store.addToken("cached");
      const before = reads();
      for (let i = 0; i < 5; i++) expect(await store.authenticate(token)).toBe("cached");
      expect(reads() - before).toBe(1);
      const result = await store.submit(submission("cached", "auto_approved")); // a submission changes no token: the cache stays
      expect(result.ok).toBe(true);
      expect(await store.authenticate(token)).toBe("cached");
      expect(reads() - before).toBe(1);
      await store.revokeToken("cached");
      expect(await store.authenticate(token)).toBeNull();
      expect(reads() - before).toBe(2);
    } finally {
      await store.close();
    }
  });

  it("a token revoked through another connection stops the next request", async () => {
    const database = await newDatabase(dialect);
    const serving = await stores.open(database);
    const { token } = await serving.addToken("elsewhere");
    expect(await serving.authenticate(token)).toBe("elsewhere");
    expect(await serving.authenticate(token)).toBe("elsewhere"); // answered from memory now
    const cli = await stores.open(database); // `countersign token revoke` opens its own connection
    expect(await cli.revokeToken("elsewhere")).toBe(true);
    expect(await serving.authenticate(token)).toBeNull();
    const again = await cli.addToken("elsewhere");
    expect(await serving.authenticate(again.token)).toBe("elsewhere");
    await rawSql(database, "UPDATE tokens SET revoked_at = 1 WHERE name = 'elsewhere'"); // a bare connection, no store at all
    expect(await serving.authenticate(again.token)).toBeNull();
  });

  it("remembered rules saved or forgotten anywhere apply from the next request, or the next turn of the event loop", async () => {
    const database = await newDatabase(dialect);
    const serving = await stores.open(database);
    const other = await stores.open(database);
    const { token } = await serving.addToken("agent");
    expect(await serving.listRememberedRules()).toEqual([]);
    const r = await other.submit(submission("agent"));
    if (!r.ok) throw new Error("refused");
    await other.decide(r.request.id, {
      kind: "approved_remember",
      approver: "alice",
      rules: [{ id: RULE.id, op: RULE.op, rule: RULE, token: null, expires_at: null }],
    });
    expect(await serving.authenticate(token)).toBe("agent"); // a request's token check looks at the database afresh
    expect((await serving.listRememberedRules()).map((x) => x.id)).toEqual([RULE.id]);
    expect(Object.isFrozen((await serving.listRememberedRules())[0]!.rule)).toBe(true); // shared between callers: nobody can change it
    expect(await other.forgetRule(RULE.id, "alice")).toBe(true);
    await nextTurn();
    expect(await serving.listRememberedRules()).toEqual([]);
    await rawSql(database, "UPDATE remembered_rules SET forgotten_at = NULL"); // behind every store's back
    await nextTurn();
    expect((await serving.listRememberedRules()).map((x) => x.id)).toEqual([RULE.id]);
  });

  it.runIf(dialect === "sqlite")(
    "a token check looks at the database afresh, in the same turn of the event loop too; the rules take the turn's last look",
    async () => {
      const database = await newDatabase("sqlite");
      const driver = openSqliteDriver(database);
      const asked: boolean[] = [];
      const counted: Driver = { ...driver, version: (fresh) => (asked.push(fresh === true), driver.version(fresh)) };
      const store = await storeOver(counted);
      const other = await stores.open(database);
      try {
        const { token } = await store.addToken("agent");
        asked.length = 0;
        expect(await store.authenticate(token)).toBe("agent");
        await store.listRememberedRules();
        expect(asked).toEqual([true, false]);
        expect(await other.revokeToken("agent")).toBe(true); // no turn passes: the next token check sees it all the same
        expect(await store.authenticate(token)).toBeNull();
      } finally {
        await store.close();
      }
    },
  );
});

describe.each(DIALECTS)("tokens shared by two stores on %s", (dialect) => {
  const stores = opener();
  afterAll(() => stores.closeAll());

  it("a token revoked by another store is refused at once", async () => {
    const database = await newDatabase(dialect);
    const a = await stores.open(database);
    const b = await stores.open(database);
    const { token } = await a.addToken("shared");
    expect(await a.authenticate(token)).toBe("shared");
    await b.revokeToken("shared");
    expect(await a.authenticate(token)).toBeNull();
  });
});
