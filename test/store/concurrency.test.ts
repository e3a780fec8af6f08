// Concurrency with real parallelism: several connections and a second process on one database.
import { afterAll, describe, expect, it } from "vitest";
import type { PersonDecision, StoreEvent } from "../../src/model/request.js";
import type { Store } from "../../src/store/index.js";
import { DIALECTS, newDatabase, newJti, opener, rawSql, submission } from "./fixtures.js";
import { runTogether, spawnChild } from "./processes.js";

describe.each(DIALECTS)("concurrency on %s", (dialect) => {
  const stores = opener();
  afterAll(() => stores.closeAll());

  async function setUp(): Promise<{ database: string; a: Store; b: Store; token: string }> {
    const database = await newDatabase(dialect);
    const a = await stores.open(database);
    const b = await stores.open(database);
    return { database, a, b, token: (await a.addToken("agent")).name };
  }

  it("records exactly one of 50 simultaneous decisions on one request, from two processes and two connections", async () => {
    const { database, a, b, token } = await setUp();
    const r = await a.submit(submission(token));
    if (!r.ok) throw new Error("refused");
    const id = r.request.id;
    const kinds: PersonDecision[] = [
      { kind: "approved_once", approver: "alice" },
      { kind: "rejected", approver: "bob", reason: "no" },
      { kind: "request_more", approver: "carol", feedback: "why?" },
    ];
    const pick = (i: number): PersonDecision => kinds[i % kinds.length]!;
    const child = spawnChild({
      database,
      work: "decide",
      id,
      decisions: Array.from({ length: 20 }, (_, i) => pick(i)),
    });
    const [fromChild] = await Promise.all([
      runTogether([child]),
      child.ready.then(() =>
        Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? a : b).decide(id, pick(i + 1)))),
      ),
    ]).then(async ([lines, local]) => [
      [...lines[0]!, ...local.map((x) => (x.ok ? { ok: true, changed: x.changed } : { ok: false, reason: x.reason }))],
    ]);
    const results = fromChild as { ok: boolean; changed?: boolean; reason?: string }[];
    expect(results).toHaveLength(50);
    expect(results.filter((x) => x.ok && x.changed)).toHaveLength(1);
    const final = await a.get(id);
    const winner = final?.decision?.kind;
    const sameKind = results.filter((x) => x.ok && !x.changed).length;
    const conflicts = results.filter((x) => !x.ok && x.reason === "conflict").length;
    expect(sameKind + conflicts).toBe(49);
    expect(winner).toBeDefined();
    let decided = 0;
    for await (const e of a.exportAudit()) if (e.type === "decided" && e.request_id === id) decided++;
    expect(decided).toBe(1);
    expect(await a.verifyAuditChain()).toMatchObject({ ok: true });
  });

  it("loses none of 200 concurrent submissions from two processes and two connections, on one chain", async () => {
    const { database, a, b, token } = await setUp();
    const child = spawnChild({ database, work: "submit", token, count: 100 });
    const [[childIds], localResults] = await Promise.all([
      runTogether([child]),
      child.ready.then(() =>
        Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? a : b).submit(submission(token)))),
      ),
    ]);
    const ids = [...(childIds as string[]), ...localResults.map((r) => (r.ok ? r.request.id : r.reason))];
    expect(ids.every((id) => id.startsWith("req_"))).toBe(true);
    expect(new Set(ids).size).toBe(200);
    const listed = new Set<string>();
    let cursor: string | undefined;
    do {
      const page = await b.list({ status: "pending", limit: 77, ...(cursor === undefined ? {} : { cursor }) });
      for (const r of page.requests) listed.add(r.id);
      cursor = page.cursor;
    } while (cursor !== undefined);
    expect([...listed].sort()).toEqual([...ids].sort());
    expect(await a.verifyAuditChain()).toEqual({ ok: true, entries: 1 + 200 * 2, head: expect.any(String) });
    const events = await a.eventsSince(0, 1000);
    expect(events.filter((e) => e.type === "pending")).toHaveLength(200);
  });

  it("redeems a receipt exactly once across two processes and two connections", async () => {
    const { database, a, b, token } = await setUp();
    const r = await a.submit(submission(token, "auto_approved"));
    if (!r.ok) throw new Error("refused");
    const jti = newJti();
    const exp = Math.floor(Date.now() / 1000) + 300;
    await a.recordReceipt({ jti, request_id: r.request.id, exp, token: "signed" });
    const children = [
      spawnChild({ database, work: "redeem", jti, exp, attempts: 10 }),
      spawnChild({ database, work: "redeem", jti, exp, attempts: 10 }),
    ];
    const [fromChildren, local] = await Promise.all([
      runTogether(children),
      Promise.all(children.map((c) => c.ready)).then(() =>
        Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).redeem(jti, exp))),
      ),
    ]);
    const outcomes = [...fromChildren.flat(), ...local.map((ok) => (ok ? "redeemed" : "already_redeemed"))];
    expect(outcomes).toHaveLength(30);
    expect(outcomes.filter((o) => o === "redeemed")).toHaveLength(1);
    expect(outcomes.filter((o) => o !== "redeemed").every((o) => o === "already_redeemed")).toBe(true);
  });

  it("hands out one receipt of a request to readers racing from two processes and two connections", async () => {
    const { database, a, b, token } = await setUp();
    const r = await a.submit(submission(token, "auto_approved"));
    if (!r.ok) throw new Error("refused");
    const exp = Math.floor(Date.now() / 1000) + 300;
    const children = [
      spawnChild({ database, work: "issue", id: r.request.id, exp, attempts: 10 }),
      spawnChild({ database, work: "issue", id: r.request.id, exp, attempts: 10 }),
    ];
    const [fromChildren, local] = await Promise.all([
      runTogether(children),
      Promise.all(children.map((c) => c.ready)).then(() =>
        Promise.all(
          Array.from({ length: 10 }, (_, i) => {
            const jti = newJti();
            return (i % 2 === 0 ? a : b).recordReceipt({ jti, exp, request_id: r.request.id, token: `signed-${jti}` });
          }),
        ),
      ),
    ]);
    const handedOut = [...fromChildren.flat(), ...local.map((x) => (x.ok ? x.token : x.reason))];
    expect(handedOut).toHaveLength(30);
    expect(new Set(handedOut).size).toBe(1);
    expect(handedOut[0]).toMatch(/^signed-/);
    let issued = 0;
    for await (const e of a.exportAudit()) if (e.type === "receipt_issued" && e.request_id === r.request.id) issued++;
    expect(issued).toBe(1);
  });
});

describe("events across servers", () => {
  const stores = opener();
  afterAll(() => stores.closeAll());

  it("shows a decision made through one PostgreSQL server process to the other's subscribers (LISTEN/NOTIFY)", async () => {
    const database = await newDatabase("postgres");
    const a = await stores.open(database);
    const { name: token } = await a.addToken("agent");
    const seen: StoreEvent[] = [];
    const stop = await a.subscribe((events) => seen.push(...events));
    const r = await a.submit(submission(token));
    if (!r.ok) throw new Error("refused");
    const child = spawnChild({
      database,
      work: "decide",
      id: r.request.id,
      decisions: [{ kind: "approved_once", approver: "alice" }],
    });
    await runTogether([child]);
    await expect.poll(() => seen.map((e) => e.type), { timeout: 20_000 }).toEqual(["pending", "resolved"]);
    expect(seen[1]).toMatchObject({ request_id: r.request.id, status: "approved" });
    await stop();
  });

  it("catches up on what happened while its LISTEN connection was cut", async () => {
    const database = await newDatabase("postgres");
    const [a, b] = [await stores.open(database), await stores.open(database)];
    const { name: token } = await a.addToken("agent");
    const seen: StoreEvent[] = [];
    const stop = await a.subscribe((events) => seen.push(...events));
    const cut = await rawSql(
      database,
      "SELECT pg_terminate_backend(pid) AS cut FROM pg_stat_activity WHERE query = 'LISTEN countersign_events'",
    );
    expect(cut).toEqual([{ cut: true }]);
    const r = await b.submit(submission(token)); // its NOTIFY finds no listener of a's
    if (!r.ok) throw new Error("refused");
    await expect
      .poll(() => seen.map((e) => [e.type, e.request_id]), { timeout: 10_000 })
      .toEqual([["pending", r.request.id]]);
    await b.decide(r.request.id, { kind: "approved_once", approver: "alice" });
    await expect.poll(() => seen.map((e) => e.type), { timeout: 10_000 }).toEqual(["pending", "resolved"]);
    await stop();
  });

  it("shows a decision made through another SQLite connection of this process to subscribers", async () => {
    const database = await newDatabase("sqlite");
    const [a, b] = [await stores.open(database), await stores.open(database)];
    const { name: token } = await a.addToken("agent");
    const seen: StoreEvent[] = [];
    const stop = await a.subscribe((events) => seen.push(...events));
    const r = await b.submit(submission(token));
    if (!r.ok) throw new Error("refused");
    await b.decide(r.request.id, { kind: "rejected", approver: "alice", reason: "no" });
    await expect
      .poll(() => seen.map((e) => [e.type, e.status]))
      .toEqual([
        ["pending", "pending"],
        ["resolved", "rejected"],
      ]);
    await stop();
  });
});
