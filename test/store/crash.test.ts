// Slow: a writer process is started and SIGKILLed mid-burst, on SQLite and PostgreSQL.
// Crash: a server process SIGKILLed in the middle of a burst of writes. After reopening, every
// write it acknowledged is there, what was decided before is intact, and the chain verifies.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DIALECTS, newDatabase, opener, submission } from "./fixtures.js";
import { freshDatabase, runCluster, startCluster, stopCluster } from "./postgres-cluster.js";
import { spawnChild, type Child } from "./processes.js";

/** Start a burst and wait until `n` submissions were acknowledged. */
async function burst(database: string, token: string, n: number): Promise<Child> {
  const child = spawnChild({ database, work: "burst", token });
  await child.ready;
  child.go();
  await expect.poll(() => child.lines.length, { timeout: 20_000, interval: 5 }).toBeGreaterThanOrEqual(n);
  return child;
}

describe.each(DIALECTS)("crash on %s", (dialect) => {
  const stores = opener();
  afterAll(() => stores.closeAll());

  it("keeps every acknowledged write of a SIGKILLed writer, pending requests stay pending", async () => {
    const database = await newDatabase(dialect);
    const store = await stores.open(database);
    const { name } = await store.addToken("agent");
    const decided = await store.submit(submission(name));
    const waiting = await store.submit(submission(name));
    if (!decided.ok || !waiting.ok) throw new Error("refused");
    await store.decide(decided.request.id, { kind: "approved_once", approver: "alice" });
    await stores.closeAll();

    const child = await burst(database, name, 40);
    child.process.kill("SIGKILL");
    await child.exited;
    const acknowledged = child.lines as string[];

    const reopened = await stores.open(database);
    for (const id of acknowledged) expect((await reopened.get(id))?.status).toBe("pending");
    expect((await reopened.get(waiting.request.id))?.status).toBe("pending");
    expect(await reopened.get(decided.request.id)).toMatchObject({
      status: "approved",
      decision: { kind: "approved_once", approver: "alice" },
    });
    const chain = await reopened.verifyAuditChain();
    expect(chain).toMatchObject({ ok: true });
    // the killed process may have committed one more than it printed, never fewer
    expect(chain.entries - (1 + 2 * 2 + 1)).toBeGreaterThanOrEqual(2 * acknowledged.length);
    expect((await reopened.addToken("after-crash")).name).toBe("after-crash");
    expect(await reopened.verifyAuditChain()).toMatchObject({ ok: true });
  });
});

describe("crash of the PostgreSQL server itself", () => {
  const stores = opener();
  const dir = join(mkdtempSync(join(tmpdir(), "countersign-pgcrash-")), "cluster");
  afterAll(async () => {
    await stores.closeAll();
    stopCluster(dir);
  });

  it("keeps every acknowledged write after an immediate (crash) shutdown and restart", async () => {
    const port = await startCluster(dir);
    const database = await freshDatabase(port);
    const store = await stores.open(database);
    const { name } = await store.addToken("agent");
    await stores.closeAll();

    const child = await burst(database, name, 30);
    stopCluster(dir); // pg_ctl stop -m immediate: no checkpoint, recovery from the WAL at the next start
    await child.exited; // the writer fails with a store_error once its server is gone
    const acknowledged = [...(child.lines as string[])];

    runCluster(dir, port);
    const reopened = await stores.open(database);
    for (const id of acknowledged) expect((await reopened.get(id))?.status).toBe("pending");
    expect(await reopened.verifyAuditChain()).toMatchObject({ ok: true });
    expect(acknowledged.length).toBeGreaterThanOrEqual(30);
  });
});
