// One reader of the events table per process, however many subscribe: every subscriber gets every
// event once and in order, a resuming one first what it missed, on SQLite and PostgreSQL.
import { afterAll, describe, expect, it } from "vitest";
import type { StoreEvent } from "../../src/model/request.js";
import { openPostgresDriver, openSqliteDriver, storeOver, type Driver, type Store } from "../../src/store/index.js";
import { DIALECTS, newDatabase, submission } from "./fixtures.js";

/** The next read of the events table, held: `reached` once it has read, answering only after `release()`. */
interface HeldRead {
  reached: Promise<void>;
  release: () => void;
}

/** A store whose driver counts its reads of the events table; `hold()` holds the next one. */
async function countingStore(
  database: string,
): Promise<{ store: Store; eventReads: () => number; hold: () => HeldRead }> {
  const driver: Driver = database.startsWith("postgres")
    ? await openPostgresDriver(database)
    : openSqliteDriver(database);
  let reads = 0;
  let held: { reach: () => void; gate: Promise<void> } | undefined;
  const counting: Driver = {
    ...driver,
    dialect: driver.dialect,
    read: (fn) =>
      driver.read((q) =>
        fn({
          all: async (sql, params) => {
            if (!/FROM events WHERE id >/.test(sql)) return q.all(sql, params);
            reads++;
            const rows = await q.all(sql, params);
            const h = held;
            held = undefined;
            h?.reach();
            await h?.gate;
            return rows;
          },
          run: (sql, params) => q.run(sql, params),
        }),
      ),
  };
  const hold = (): HeldRead => {
    let release!: () => void;
    let reach!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const reached = new Promise<void>((resolve) => (reach = resolve));
    held = { reach, gate };
    return { reached, release };
  };
  return { store: await storeOver(counting), eventReads: () => reads, hold };
}

describe.each(DIALECTS)("event feed on %s", (dialect) => {
  const stores: Store[] = [];
  afterAll(() => Promise.all(stores.map((s) => s.close())));

  it("gives each of 200 subscribers every event once, in order, for one read per commit", async () => {
    const { store, eventReads } = await countingStore(await newDatabase(dialect));
    stores.push(store);
    const { name: token } = await store.addToken("agent");
    const seen: StoreEvent[][] = Array.from({ length: 200 }, () => []);
    const stops = await Promise.all(seen.map((list) => store.subscribe((events) => list.push(...events))));
    const readsBefore = eventReads();
    let commits = 0;
    for (let round = 0; round < 5; round++) {
      // concurrent submissions commit together: a commit carries several events
      const results = await Promise.all(Array.from({ length: 20 }, () => store.submit(submission(token))));
      expect(results.every((r) => r.ok)).toBe(true);
      commits++;
    }
    await expect.poll(() => seen.every((list) => list.length === 100)).toBe(true);
    const ids = seen[0]!.map((e) => e.id);
    expect(ids).toEqual([...new Set(ids)].sort((x, y) => x - y));
    for (const list of seen) expect(list).toEqual(seen[0]);
    // at most a read per ring plus the one that finds nothing new, never one per subscriber
    expect(eventReads() - readsBefore).toBeLessThanOrEqual(100 + commits);
    expect(eventReads() - readsBefore).toBeLessThan(seen.length);
    await Promise.all(stops.map((stop) => stop()));
  });

  it("resumes a subscriber after its last event id while others keep receiving live events", async () => {
    const { store } = await countingStore(await newDatabase(dialect));
    stores.push(store);
    const { name: token } = await store.addToken("agent");
    const live: StoreEvent[] = [];
    const stopLive = await store.subscribe((events) => live.push(...events));
    for (let i = 0; i < 30; i++) expect((await store.submit(submission(token))).ok).toBe(true);
    await expect.poll(() => live.length).toBe(30);
    const resumed: StoreEvent[] = [];
    const stopResumed = await store.subscribe((events) => resumed.push(...events), { after: live[9]!.id });
    const more = Promise.all(Array.from({ length: 10 }, () => store.submit(submission(token))));
    await more;
    await expect.poll(() => resumed.length).toBe(30);
    await expect.poll(() => live.length).toBe(40);
    expect(resumed).toEqual(live.slice(10));
    await Promise.all([stopLive(), stopResumed()]);
  });

  it("pages a long backlog for a resuming subscriber without gaps or repeats", async () => {
    const { store } = await countingStore(await newDatabase(dialect));
    stores.push(store);
    const { name: token } = await store.addToken("agent");
    for (let round = 0; round < 12; round++)
      await Promise.all(Array.from({ length: 100 }, () => store.submit(submission(token))));
    const all = await store.eventsSince(0, 10_000);
    expect(all).toHaveLength(1200);
    const resumed: StoreEvent[] = [];
    const stop = await store.subscribe((events) => resumed.push(...events), { after: all[3]!.id });
    await expect.poll(() => resumed.length).toBe(1196);
    expect(resumed).toEqual(all.slice(4));
    await stop();
  });

  it("hands the subscribers that are up to date one and the same batch per read", async () => {
    const { store } = await countingStore(await newDatabase(dialect));
    stores.push(store);
    const { name: token } = await store.addToken("agent");
    const batches: (readonly StoreEvent[])[][] = [[], []];
    const stops = await Promise.all(batches.map((list) => store.subscribe((events) => list.push(events))));
    await Promise.all(Array.from({ length: 10 }, () => store.submit(submission(token))));
    await expect.poll(() => batches.map((list) => list.flat().length)).toEqual([10, 10]);
    expect(batches[0]).toHaveLength(batches[1]!.length);
    // the same array: what a stream sends is made once
    for (const [i, batch] of batches[0]!.entries()) expect(batch).toBe(batches[1]![i]);
    await Promise.all(stops.map((stop) => stop()));
  });

  it("catches up a subscriber that resumes while a read is under way before it gets live events", async () => {
    const { store, hold } = await countingStore(await newDatabase(dialect));
    stores.push(store);
    const { name: token } = await store.addToken("agent");
    const live: StoreEvent[] = [];
    const stopLive = await store.subscribe((events) => live.push(...events));
    for (let i = 0; i < 5; i++) expect((await store.submit(submission(token))).ok).toBe(true);
    await expect.poll(() => live.length).toBe(5);
    const read = hold();
    expect((await store.submit(submission(token))).ok).toBe(true);
    await read.reached; // the reader has the sixth event in hand
    const resumed: StoreEvent[] = [];
    const stopResumed = await store.subscribe((events) => resumed.push(...events), { after: live[0]!.id });
    read.release();
    await expect.poll(() => live.length).toBe(6);
    await expect.poll(() => resumed.length).toBe(5);
    expect(resumed).toEqual(live.slice(1));
    await Promise.all([stopLive(), stopResumed()]);
  });

  it("keeps delivering to the others when one subscriber's listener throws", async () => {
    const { store } = await countingStore(await newDatabase(dialect));
    stores.push(store);
    const { name: token } = await store.addToken("agent");
    const seen: StoreEvent[] = [];
    const stopBad = await store.subscribe(() => {
      throw new Error("listener fails");
    });
    const stop = await store.subscribe((events) => seen.push(...events));
    await store.submit(submission(token));
    await store.submit(submission(token));
    await expect.poll(() => seen.length).toBe(2);
    await Promise.all([stopBad(), stop()]);
  });
});
