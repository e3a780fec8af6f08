// A SQLite connection that keeps writing hands its WAL checkpoints to a thread of its own: the
// committed pages reach the database file while the writer would not yet have checkpointed.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openSqliteDriver } from "../../src/store/index.js";
import { startWalCheckpointer } from "../../src/store/wal-checkpointer.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, ok: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await sleep(50);
  }
}

describe("background WAL checkpoints", () => {
  it("start after a run of write transactions, put the committed pages in the database file, and stop with the store", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "countersign-wal-")), "t.db");
    const driver = openSqliteDriver(file);
    await driver.write((tx) => tx.run("CREATE TABLE t (v TEXT)"));
    const marker = (i: number) => `marker-${i}-${"x".repeat(40)}`;
    // A few transactions: far below SQLite's own 1000-page checkpoint, and no thread yet.
    for (let i = 0; i < 5; i++) await driver.write((tx) => tx.run("INSERT INTO t VALUES (?)", [marker(i)]));
    await sleep(400);
    expect(readFileSync(file).includes(marker(4))).toBe(false);
    for (let i = 5; i < 100; i++) await driver.write((tx) => tx.run("INSERT INTO t VALUES (?)", [marker(i)]));
    await until("the last row is in the database file", () => readFileSync(file).includes(marker(99)));
    await driver.close();
    const again = openSqliteDriver(file);
    expect(await again.read((q) => q.all("SELECT count(*) AS n FROM t"))).toEqual([{ n: 100 }]);
    await again.close();
  });

  it("tells the writer when its thread stops unasked", async () => {
    let exited = false;
    const checkpointer = startWalCheckpointer(join(mkdtempSync(join(tmpdir(), "countersign-wal-")), "missing", "t.db"), 50, () => (exited = true));
    await until("the thread reported its end", () => exited); // it cannot open a file in a missing directory
    await checkpointer.stop(); // stopping a stopped thread is fine
  });
});
