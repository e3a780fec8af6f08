// Fail closed: when the audit entry or the database write fails, the caller gets a store_error
// and the change it asked for did not happen; a full or read-only data directory is the same.
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { CountersignError } from "../../src/model/errors.js";
import type { Store } from "../../src/store/index.js";
import { tmpfs } from "../support/tmpfs.js";
import { DIALECTS, newDatabase, newJti, opener, rawSql, sha256, submission } from "./fixtures.js";

/** Make every audit insert fail from now on, as a full disk or a broken table would. */
function breakAudit(database: string): Promise<unknown> {
  return rawSql(
    database,
    database.startsWith("postgres://")
      ? `CREATE FUNCTION no_audit() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'audit write failed'; END $$ LANGUAGE plpgsql;
         CREATE TRIGGER no_audit BEFORE INSERT ON audit FOR EACH ROW EXECUTE FUNCTION no_audit();`
      : "CREATE TRIGGER no_audit BEFORE INSERT ON audit BEGIN SELECT RAISE(ABORT, 'audit write failed'); END;",
  );
}

function repairAudit(database: string): Promise<unknown> {
  return rawSql(database, "DROP TRIGGER no_audit" + (database.startsWith("postgres://") ? " ON audit" : ""));
}

async function expectStoreError(p: Promise<unknown>): Promise<CountersignError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CountersignError);
  expect(err).toMatchObject({ class: "store_error", boundary: "store", retriable: true });
  return err as CountersignError;
}

describe.each(DIALECTS)("failing audit writes on %s", (dialect) => {
  const stores = opener();
  afterAll(() => stores.closeAll());

  it("lets no change happen without its audit entry", async () => {
    const database = await newDatabase(dialect);
    const store: Store = await stores.open(database);
    const { name, token } = await store.addToken("agent");
    const pending = await store.submit(submission(name));
    const approved = await store.submit(submission(name, "auto_approved"));
    const unissuedFor = await store.submit(submission(name, "auto_approved")); // no receipt yet: recording one writes
    if (!pending.ok || !approved.ok || !unissuedFor.ok) throw new Error("refused");
    const [issued, unissued] = [newJti(), newJti()];
    const exp = Math.floor(Date.now() / 1000) + 300;
    await store.recordReceipt({ jti: issued, request_id: approved.request.id, exp, token: "signed" });
    const before = await store.verifyAuditChain();

    await breakAudit(database);
    const err = await expectStoreError(store.submit(submission(name)));
    expect(err.message).toMatch(/audit write failed/);
    await expectStoreError(store.decide(pending.request.id, { kind: "approved_once", approver: "alice" }));
    await expectStoreError(
      store.recordReceipt({ jti: unissued, request_id: unissuedFor.request.id, exp, token: "signed" }),
    );
    await expectStoreError(store.redeem(issued, exp));
    await expectStoreError(store.revokeToken(name));
    await expectStoreError(store.recordAudit({ type: "policy_reloaded", actor: "authority", ok: true }));

    expect((await store.get(pending.request.id))?.status).toBe("pending");
    expect((await store.list()).requests).toHaveLength(3);
    expect(await store.authenticate(token)).toBe(name);
    expect(await store.eventsSince(0)).toHaveLength(3);
    expect(await store.verifyAuditChain()).toEqual(before);

    await repairAudit(database);
    expect(await store.redeemReceipt(unissued, exp)).toBe("unknown"); // it was never recorded
    expect(await store.redeem(issued, exp)).toBe(true); // the failed attempt did not use it up
    expect(await store.verifyAuditChain()).toMatchObject({ ok: true, entries: before.entries + 2 });
  });
});

describe("a PostgreSQL store that cannot be reached", () => {
  it("fails to open with a store_error that does not show the password", async () => {
    const stores = opener();
    const err = await expectStoreError(stores.open("postgres://agent:s3cret@127.0.0.1:1/countersign"));
    expect(err.message).toMatch(
      /cannot connect to the PostgreSQL store postgres:\/\/agent:\*\*\*@127\.0\.0\.1:1\/countersign/,
    );
    expect(err.message).not.toContain("s3cret");
  });
});

describe("a full or read-only SQLite data directory", () => {
  const stores = opener();
  const mounts: { unmount(): void }[] = [];
  afterAll(async () => {
    await stores.closeAll();
    for (const m of mounts) m.unmount();
  });

  it("answers store_error when the disk fills, keeps every acknowledged write, and is not corrupted", async () => {
    const fs = tmpfs("1m");
    mounts.push(fs);
    const database = join(fs.dir, "countersign.db");
    const store = await stores.open(database);
    const { name } = await store.addToken("agent");
    const acknowledged: string[] = [];
    let failure: unknown;
    const big = "x".repeat(20_000);
    for (let i = 0; i < 500 && failure === undefined; i++) {
      const input = submission(name);
      const source = `${input.source}// ${big}\n`;
      const facts = { ...input.facts, program: { ...input.facts.program, sha256: sha256(source) } };
      try {
        const r = await store.submit({ ...input, source, facts });
        if (r.ok) acknowledged.push(r.request.id);
      } catch (err) {
        failure = err;
      }
    }
    expect(failure).toMatchObject({ class: "store_error" });
    expect((failure as Error).message).toMatch(/full|disk/i);
    expect(acknowledged.length).toBeGreaterThan(5);
    await stores.closeAll();
    // the disk is still full: reopening and reading must work all the same
    const reopened = await stores.open(database);
    for (const id of acknowledged) expect((await reopened.get(id))?.status).toBe("pending");
    expect(await reopened.verifyAuditChain()).toMatchObject({ ok: true, entries: 1 + 2 * acknowledged.length });
    const raw = new Database(database, { readonly: true });
    expect(raw.pragma("integrity_check", { simple: true })).toBe("ok");
    raw.close();
  });

  it("answers store_error on a read-only directory: at open when there is no store yet, at write when there is", async () => {
    const empty = tmpfs("1m");
    mounts.push(empty);
    empty.remount("ro");
    const err = await expectStoreError(stores.open(join(empty.dir, "countersign.db")));
    expect(err.message).toMatch(/cannot open the SQLite store .*countersign\.db/);

    const fs = tmpfs("4m");
    mounts.push(fs);
    const database = join(fs.dir, "countersign.db");
    const store = await stores.open(database);
    const { name } = await store.addToken("agent");
    const before = await store.submit(submission(name));
    if (!before.ok) throw new Error("refused");
    await stores.closeAll();
    fs.remount("ro");
    const failure = await stores.open(database).then(
      async (s) => expectStoreError(s.submit(submission(name))),
      async (e: unknown) => {
        expect(e).toMatchObject({ class: "store_error" });
        return e as CountersignError;
      },
    );
    expect(failure.message).toMatch(/readonly|read-only|unable to open/i);
    await stores.closeAll();
    fs.remount("rw");
    const reopened = await stores.open(database);
    expect((await reopened.get(before.request.id))?.status).toBe("pending");
    expect(await reopened.verifyAuditChain()).toMatchObject({ ok: true, entries: 3 });
  });
});
