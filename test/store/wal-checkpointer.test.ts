// A SQLite connection that keeps writing hands its WAL checkpoints to a thread of its own: the
// committed pages reach the database file while the writer would not yet have checkpointed.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { openSqliteDriver } from "../../src/store/index.js";
import { BACKGROUND_CHECKPOINTS_AFTER } from "../../src/store/sqlite-driver.js";
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

  it("keep a process whose last work is closing the store alive until the thread has closed its connection", () => {
    // Enough writes to start the thread; then nothing else is alive while close() waits for it: with
    // the thread unreferenced, the process ended there, its top-level await unsettled (exit code 13).
    const dir = mkdtempSync(join(tmpdir(), "countersign-wal-"));
    const script = join(dir, "close-last.mts");
    const driverUrl = pathToFileURL(join(import.meta.dirname, "../../src/store/index.js")).href;
    writeFileSync(
      script,
      `import { openSqliteDriver } from ${JSON.stringify(driverUrl)};
const driver = openSqliteDriver(${JSON.stringify(join(dir, "t.db"))});
await driver.write((tx) => tx.run("CREATE TABLE t (v TEXT)"));
for (let i = 0; i < ${BACKGROUND_CHECKPOINTS_AFTER + 10}; i++) await driver.write((tx) => tx.run("INSERT INTO t VALUES (?)", [String(i)]));
await driver.close();
console.log("closed");`,
    );
    const r = spawnSync(process.execPath, ["--import", "tsx", script], {
      encoding: "utf8",
      cwd: join(import.meta.dirname, "../.."),
    });
    expect({ status: r.status, stdout: r.stdout.trim() }).toEqual({ status: 0, stdout: "closed" });
  });

  it("tells the writer when its thread stops unasked", async () => {
    let exited = false;
    const checkpointer = startWalCheckpointer(
      join(mkdtempSync(join(tmpdir(), "countersign-wal-")), "missing", "t.db"),
      50,
      () => (exited = true),
    );
    await until("the thread reported its end", () => exited); // it cannot open a file in a missing directory
    await checkpointer.stop(); // stopping a stopped thread is fine
  });
});
