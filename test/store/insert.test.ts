// Tx.insert, the many-row INSERT of the group commit: every value arrives as a statement
// parameter would have sent it, on both stores, however many rows.
import { afterAll, describe, expect, it } from "vitest";
import { migrate, openPostgresDriver, openSqliteDriver, type Driver } from "../../src/store/index.js";
import { DIALECTS, newDatabase } from "./fixtures.js";

const AWKWARD = [
  "plain",
  'quotes " and \\ backslash \\" and \'',
  "line\nbreak\ttab",
  "ünïcödé, 日本, 😀",
  "lone \ud800 surrogate",
  '{"json": [1, 2]}',
  "",
  "?",
  "$1",
  "%s",
];

describe.each(DIALECTS)("Tx.insert on %s", (dialect) => {
  const drivers: Driver[] = [];
  afterAll(async () => Promise.all(drivers.map((d) => d.close())));

  async function driver(): Promise<Driver> {
    const database = await newDatabase(dialect);
    const d = dialect === "postgres" ? await openPostgresDriver(database) : openSqliteDriver(database);
    drivers.push(d);
    await migrate(d);
    return d;
  }

  it("stores each value as a parameter would, nulls and numbers included", async () => {
    const d = await driver();
    const rows = AWKWARD.map((text, i) => [
      `${text}`,
      `hash ${i}`,
      1_700_000_000_000 + i,
      i % 2 === 0 ? null : 1_800_000_000_000,
    ]);
    await d.write((tx) => tx.insert("tokens (name, hash, created_at, revoked_at)", rows));
    const viaInsert = await d.read((q) => q.all("SELECT name, hash, created_at, revoked_at FROM tokens ORDER BY hash"));
    await d.write((tx) => tx.run("DELETE FROM tokens"));
    for (const row of rows)
      await d.write((tx) => tx.run("INSERT INTO tokens (name, hash, created_at, revoked_at) VALUES (?, ?, ?, ?)", row));
    const viaParameters = await d.read((q) =>
      q.all("SELECT name, hash, created_at, revoked_at FROM tokens ORDER BY hash"),
    );
    expect(viaInsert).toEqual(viaParameters);
    const intact = (names: unknown[]) => names.filter((n) => !String(n).startsWith("lone")); // a lone surrogate: as its parameter (above)
    expect(intact(viaInsert.map((r) => r.name))).toEqual(intact(AWKWARD));
  });

  it("inserts more rows than one statement takes, answers what RETURNING names, and nothing for no rows", async () => {
    const d = await driver();
    expect(await d.write((tx) => tx.insert("tokens (name, hash, created_at)", []))).toEqual([]);
    const rows = Array.from({ length: 1203 }, (_, i) => [`name ${i}`, `hash ${i}`, i]);
    const returned = await d.write((tx) => tx.insert("tokens (name, hash, created_at)", rows, "name, created_at"));
    expect(returned.map((r) => [r.name, Number(r.created_at)]).sort((a, b) => Number(a[1]) - Number(b[1]))).toEqual(
      rows.map((r) => [r[0], r[2]]),
    );
    expect(await d.read((q) => q.all("SELECT COUNT(*) AS n FROM tokens"))).toEqual([{ n: 1203 }]);
  });

  it("stores every row count from 1 to 70 exactly once and RETURNs each row (each way of splitting rows into statements)", async () => {
    const d = await driver();
    let next = 0;
    for (let n = 1; n <= 70; n++) {
      const rows = Array.from({ length: n }, () => [`name ${next}`, `hash ${next}`, next++]);
      const returned = await d.write((tx) => tx.insert("tokens (name, hash, created_at)", rows, "name"));
      expect(returned.map((r) => String(r.name)).sort()).toEqual(rows.map((r) => String(r[0])).sort());
    }
    expect(await d.read((q) => q.all("SELECT COUNT(*) AS n, COUNT(DISTINCT hash) AS d FROM tokens"))).toEqual([
      { n: next, d: next },
    ]);
  });

  it("rolls the whole insert back with its transaction when a row breaks a constraint", async () => {
    const d = await driver();
    const rows = [
      ["a", "same", 1],
      ["b", "same", 2],
    ];
    await expect(d.write((tx) => tx.insert("tokens (name, hash, created_at)", rows))).rejects.toMatchObject({
      class: "store_error",
    });
    expect(await d.read((q) => q.all("SELECT name FROM tokens"))).toEqual([]);
  });
});
