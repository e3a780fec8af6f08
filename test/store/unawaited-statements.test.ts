// A transaction body may leave its last statements unawaited (Driver.write): the driver waits
// for them, commits only when every one succeeded, and a statement issued once the body has
// returned never runs outside the transaction.
import { afterAll, describe, expect, it } from "vitest";
import type { Driver } from "../../src/store/driver.js";
import { openPostgresDriver } from "../../src/store/postgres-driver.js";
import { openSqliteDriver } from "../../src/store/sqlite-driver.js";
import { DIALECTS, newDatabase } from "./fixtures.js";

describe.each(DIALECTS)("statements a transaction leaves to the commit, on %s", (dialect) => {
  const drivers: Driver[] = [];
  afterAll(async () => {
    await Promise.all(drivers.map((d) => d.close()));
  });

  async function driver(): Promise<Driver> {
    const database = await newDatabase(dialect);
    const d = dialect === "postgres" ? await openPostgresDriver(database) : openSqliteDriver(database);
    drivers.push(d);
    await d.write(async (tx) => void (await tx.run("CREATE TABLE t (n INTEGER PRIMARY KEY)")));
    return d;
  }

  const rows = (d: Driver): Promise<number[]> =>
    d.read(async (q) => (await q.all("SELECT n FROM t ORDER BY n")).map((r) => Number(r.n)));

  it("commits the statements the body issued and did not await", async () => {
    const d = await driver();
    const result = await d.write(async (tx) => {
      void tx.insert("t (n)", [[1], [2], [3]]);
      void tx.run("INSERT INTO t (n) VALUES (?)", [4]);
      return "done";
    });
    expect(result).toBe("done");
    expect(await rows(d)).toEqual([1, 2, 3, 4]);
  });

  it("rolls back the whole transaction when one of them fails, and reports that failure", async () => {
    const d = await driver();
    await d.write(async (tx) => void (await tx.run("INSERT INTO t (n) VALUES (?)", [1])));
    const attempt = d.write(async (tx) => {
      void tx.run("INSERT INTO t (n) VALUES (?)", [2]);
      void tx.run("INSERT INTO t (n) VALUES (?)", [1]); // a duplicate key: fails
      void tx.run("INSERT INTO t (n) VALUES (?)", [3]);
      return "done";
    });
    await expect(attempt).rejects.toMatchObject({
      class: "store_error",
      message: expect.stringMatching(/store write failed/),
    });
    expect(await rows(d)).toEqual([1]);
    // the connection is fit for the next transaction
    await d.write(async (tx) => void tx.run("INSERT INTO t (n) VALUES (?)", [5]));
    expect(await rows(d)).toEqual([1, 5]);
  });

  it("refuses a statement issued after the body returned, and commits nothing of it", async () => {
    const d = await driver();
    let late: Promise<unknown> | undefined;
    await d.write(async (tx) => {
      void tx.run("INSERT INTO t (n) VALUES (?)", [1]);
      setImmediate(
        () =>
          (late = tx.run("INSERT INTO t (n) VALUES (?)", [2]).then(
            () => "ran",
            (err: Error) => err.message,
          )),
      );
      return undefined;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(await late).toMatch(/after its transaction ended/);
    expect(await rows(d)).toEqual([1]);
  });
});
