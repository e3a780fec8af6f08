// The hash chain: every entry verifies, and a change to any stored row is named by `verify`,
// in the database and in an exported JSONL file.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { entryHash, sha256Json, verifyChain, type Store } from "../../src/store/index.js";
import { DIALECTS, newDatabase, opener, rawSql as tamper, submission } from "./fixtures.js";

async function exported(store: Store): Promise<string[]> {
  const lines: string[] = [];
  for await (const entry of store.exportAudit()) lines.push(JSON.stringify(entry));
  return lines;
}

describe.each(DIALECTS)("audit chain on %s", (dialect) => {
  const stores = opener();
  afterAll(() => stores.closeAll());

  /** A store with 19 entries of every common kind. */
  async function populated(): Promise<{ store: Store; database: string }> {
    const database = await newDatabase(dialect);
    const store = await stores.open(database);
    const { name } = await store.addToken("agent");
    for (let i = 0; i < 6; i++) {
      const r = await store.submit(submission(name, i % 3 === 0 ? "auto_approved" : "ask"));
      if (r.ok && r.request.status === "pending")
        await store.decide(r.request.id, { kind: "rejected", approver: "alice", reason: `no ${i}` });
    }
    return { store, database };
  }

  let clean: { store: Store; database: string };
  beforeAll(async () => {
    clean = await populated();
  });

  it("verifies an untouched chain, and its export verifies offline the same way", async () => {
    const result = await clean.store.verifyAuditChain();
    expect(result).toMatchObject({ ok: true, entries: 19 });
    const lines = await exported(clean.store);
    expect(lines).toHaveLength(19);
    expect(await verifyChain(lines.map((l) => JSON.parse(l)))).toEqual(result);
  });

  it("verifies an empty log", async () => {
    const store = await stores.open(await newDatabase(dialect));
    expect(await store.verifyAuditChain()).toEqual({ ok: true, entries: 0, head: "0".repeat(64) });
  });

  it("names an entry whose details were changed", async () => {
    const { store, database } = await populated();
    await tamper(database, `UPDATE audit SET details = '{"kind":"approved_once"}' WHERE id = 9`);
    expect(await store.verifyAuditChain()).toMatchObject({
      ok: false,
      broken_id: 9,
      entries: 8,
      reason: "hash_mismatch",
    });
  });

  it("names an entry whose actor, type or time was changed, even with its hash recomputed by hand", async () => {
    for (const [column, value] of [
      ["actor", "'mallory'"],
      ["type", "'redeemed'"],
      ["at", "at + 1"],
    ] as const) {
      const { store, database } = await populated();
      await tamper(database, `UPDATE audit SET ${column} = ${value} WHERE id = 5`);
      expect(await store.verifyAuditChain()).toMatchObject({ ok: false, broken_id: 5, reason: "hash_mismatch" });
    }
    // rewriting the hash too breaks the link from the next entry
    const { store, database } = await populated();
    // (a first digit that differs from the old one: a fixed 'f' left one hash in 16 unchanged)
    await tamper(
      database,
      "UPDATE audit SET hash = CASE WHEN substr(hash, 1, 1) = '0' THEN '1' ELSE '0' END || substr(hash, 2) WHERE id = 5",
    );
    expect(await store.verifyAuditChain()).toMatchObject({ ok: false, broken_id: 5, reason: "hash_mismatch" });
  });

  it("names a removed entry, a removed tail and unreadable details", async () => {
    const removed = await populated();
    await tamper(removed.database, "DELETE FROM audit WHERE id = 7");
    expect(await removed.store.verifyAuditChain()).toMatchObject({ ok: false, broken_id: 7, reason: "id_gap" });
    const tail = await populated();
    await tamper(tail.database, "DELETE FROM audit WHERE id > 16");
    expect(await tail.store.verifyAuditChain()).toMatchObject({ ok: false, broken_id: 17, reason: "id_gap" });
    const garbled = await populated();
    await tamper(garbled.database, "UPDATE audit SET details = '{not json' WHERE id = 3");
    expect(await garbled.store.verifyAuditChain()).toMatchObject({ ok: false, broken_id: 3, reason: "malformed" });
  });

  it("names the first unreadable line of an export, whatever it holds", async () => {
    const lines = (await exported(clean.store)).map((l) => JSON.parse(l));
    for (const junk of [
      null,
      "entry",
      7,
      [],
      { ...lines[2], id: "3" },
      { ...lines[2], extra: 1 },
      { ...lines[2], hash: "F".repeat(64) },
    ]) {
      const entries = [...lines.slice(0, 2), junk, ...lines.slice(3)];
      expect(await verifyChain(entries)).toMatchObject({ ok: false, broken_id: 3, entries: 2, reason: "malformed" });
    }
  });

  it("names a changed line of an exported file", async () => {
    const lines = await exported(clean.store);
    const entries = lines.map((l) => JSON.parse(l));
    entries[11].details = { ...entries[11].details, forged: true };
    expect(await verifyChain(entries)).toMatchObject({ ok: false, broken_id: 12, reason: "hash_mismatch" });
    const reordered = lines.map((l) => JSON.parse(l));
    [reordered[3], reordered[4]] = [reordered[4], reordered[3]];
    expect(await verifyChain(reordered)).toMatchObject({ ok: false, broken_id: 4, reason: "id_gap" });
  });

  it("holds an export to signed heads: a head it does not have, or entries it lacks, named with where the head was kept", async () => {
    const entries = (await exported(clean.store)).map((l) => JSON.parse(l));
    const at = (n: number, from: string) => ({ size: n, head: entries[n - 1].hash as string, from });
    expect(await verifyChain(entries, { checkpoints: [at(19, "b"), at(4, "a")] })).toMatchObject({
      ok: true,
      entries: 19,
    });
    const wrong = await verifyChain(entries, { checkpoints: [at(4, "a"), { ...at(11, "b"), head: "e".repeat(64) }] });
    expect(wrong).toEqual({
      ok: false,
      entries: 10,
      broken_id: 11,
      reason: "checkpoint_mismatch",
      message:
        "audit entry 11 is not the one the signed checkpoint (b) holds: the chain was rewritten at an entry from 5 to 11",
    });
    expect(await verifyChain(entries.slice(0, 15), { checkpoints: [at(19, "kept.jws")] })).toEqual({
      ok: false,
      entries: 15,
      broken_id: 16,
      reason: "truncated",
      message:
        "the chain ends at entry 15 but the signed checkpoint (kept.jws) holds 19 entries: entries 16 to 19 were deleted",
    });
  });

  it("verifies a stretch that starts after a verified entry, and only from there", async () => {
    const entries = (await exported(clean.store)).map((l) => JSON.parse(l));
    const from = { id: 6, hash: entries[5].hash as string };
    expect(
      await verifyChain(entries.slice(6, 12), { from, checkpoints: [{ size: 12, head: entries[11].hash, from: "x" }] }),
    ).toMatchObject({ ok: true, entries: 6 });
    expect(await verifyChain(entries.slice(6, 12), { from: { ...from, hash: "e".repeat(64) } })).toMatchObject({
      ok: false,
      broken_id: 7,
      reason: "prev_hash_mismatch",
    });
  });

  it("keeps signed heads in their own table: the first one at a size and key stands; read per key", async () => {
    const { store } = await populated();
    await store.recordCheckpoint({ size: 3, kid: "k1", head: "a".repeat(64), at: 1, jws: "first" });
    await store.recordCheckpoint({ size: 3, kid: "k1", head: "b".repeat(64), at: 2, jws: "second" });
    await store.recordCheckpoint({ size: 3, kid: "k2", head: "a".repeat(64), at: 2, jws: "other's" });
    await store.recordCheckpoint({ size: 9, kid: "k1", head: "c".repeat(64), at: 3, jws: "later" });
    await store.recordCheckpoint({ size: 12, kid: "k2", head: "d".repeat(64), at: 4, jws: "other's later" });
    expect(await store.checkpoints(["k1"])).toEqual(["first", "later"]);
    expect((await store.checkpoints(["k1", "k2"])).sort()).toEqual(["first", "later", "other's", "other's later"]);
    expect(await store.checkpoints([])).toEqual([]);
    expect(await store.newestCheckpoint(["k1"])).toBe("later");
    expect(await store.newestCheckpoint(["k2"])).toBe("other's later");
    expect(await store.checkpointsAround(3, ["k1"])).toEqual({ holding: "first" });
    expect(await store.checkpointsAround(4, ["k1"])).toEqual({ before: "first", holding: "later" });
    expect(await store.checkpointsAround(10, ["k1"])).toEqual({ before: "later" });
    expect(await store.checkpointsAround(10, ["k2"])).toEqual({ before: "other's", holding: "other's later" });
  });

  it("a decision given a signer stores the checkpoint of the head it leaves, in its own transaction", async () => {
    const store = await stores.open(await newDatabase(dialect));
    const { name } = await store.addToken("agent");
    const submitted = await store.submit(submission(name, "ask"));
    if (!submitted.ok) throw new Error("not submitted");
    const signed: { size: number; head: string; at: number }[] = [];
    await store.decide(
      submitted.request.id,
      { kind: "rejected", approver: "alice", reason: "no" },
      { kid: "k1", sign: (c) => (signed.push(c), `signed ${c.size}`) },
    );
    const head = await store.auditHead();
    expect(signed).toEqual([{ size: head.id, head: head.hash, at: expect.any(Number) }]);
    expect(await store.newestCheckpoint(["k1"])).toBe(`signed ${head.id}`);
    // the same decision again changes nothing, and signs nothing
    await store.decide(
      submitted.request.id,
      { kind: "rejected", approver: "alice", reason: "no" },
      { kid: "k1", sign: (c) => (signed.push(c), "again") },
    );
    expect(signed).toHaveLength(1);
  });

  it("keeps appending one valid chain after a tamper is found (verify only reports)", async () => {
    const { store, database } = await populated();
    await tamper(database, "UPDATE audit SET actor = 'x' WHERE id = 2");
    await store.addToken("later");
    expect(await store.verifyAuditChain()).toMatchObject({ ok: false, broken_id: 2 });
  });
});

describe("an audit entry's hash", () => {
  const entries = [
    {
      id: 1,
      at: 1_700_000_000_000,
      type: "submitted",
      request_id: "req_x",
      actor: "agent",
      details: { program_sha256: "a".repeat(64), entry: "p.ts" },
      prev_hash: "0".repeat(64),
    },
    { id: 2, at: 5, type: "policy_reloaded", request_id: null, actor: null, details: {}, prev_hash: "f".repeat(64) },
    {
      id: 3,
      at: 6,
      type: "decided",
      request_id: 'r\u00e9q "q"',
      actor: "alice\u2028",
      details: { z: [1, { b: null, a: "é" }], a: { y: 2, x: [] } },
      prev_hash: "1".repeat(64),
    },
  ] as const;

  it("is the sha256 of the canonical JSON of every field but the hash, as chains written before were", () => {
    for (const entry of entries) expect(entryHash(entry as never)).toBe(sha256Json(entry as never));
    // pinned: a chain written by an earlier version verifies with this one
    expect(entryHash(entries[2] as never)).toBe("9157e72e006ff1d4adbf3c67ae539a080031e5f0d67275235287a2c6ea514184");
  });
});
