// Migrations: applied at open, idempotent, in order, and a newer database is refused.
import { afterAll, describe, expect, it } from "vitest";
import { CountersignError } from "../../src/model/errors.js";
import {
  migrate,
  MIGRATIONS,
  openPostgresDriver,
  openSqliteDriver,
  type Driver,
  type Migration,
} from "../../src/store/index.js";
import { DIALECTS, newDatabase, opener, rawSql, submission } from "./fixtures.js";

async function driverFor(database: string): Promise<Driver> {
  return database.startsWith("postgres://") ? openPostgresDriver(database) : openSqliteDriver(database);
}

async function versions(driver: Driver): Promise<number[]> {
  const rows = await driver.read((q) => q.all("SELECT version FROM schema_version ORDER BY version"));
  return rows.map((r) => Number(r.version));
}

describe.each(DIALECTS)("migrations on %s", (dialect) => {
  const stores = opener();
  afterAll(() => stores.closeAll());

  it("migrates at open, and reopening keeps the data and applies nothing twice", async () => {
    const database = await newDatabase(dialect);
    const store = await stores.open(database);
    const { name } = await store.addToken("agent");
    const r = await store.submit(submission(name));
    await stores.closeAll();
    const again = await stores.open(database);
    expect(r.ok && (await again.get(r.request.id))?.status).toBe("pending");
    const driver = await driverFor(database);
    expect(await versions(driver)).toEqual(MIGRATIONS.map((m) => m.version));
    expect(await migrate(driver)).toBe(MIGRATIONS.at(-1)?.version);
    expect(await versions(driver)).toEqual(MIGRATIONS.map((m) => m.version));
    await driver.close();
  });

  it("applies a later migration to a database made by an earlier version", async () => {
    const database = await newDatabase(dialect);
    const driver = await driverFor(database);
    await migrate(driver);
    const next: Migration = {
      version: MIGRATIONS.at(-1)!.version + 1,
      statements: () => ["ALTER TABLE tokens ADD COLUMN note TEXT"],
    };
    await migrate(driver, [...MIGRATIONS, next]);
    await migrate(driver, [...MIGRATIONS, next]);
    expect(await versions(driver)).toEqual([...MIGRATIONS.map((m) => m.version), next.version]);
    await driver.write((tx) =>
      tx.run("INSERT INTO tokens (name, hash, created_at, note) VALUES ('n', 'h', 1, 'added by v2')"),
    );
    await driver.close();
  });

  it("rolls a failing migration back whole", async () => {
    const database = await newDatabase(dialect);
    const driver = await driverFor(database);
    await migrate(driver);
    const broken: Migration = {
      version: MIGRATIONS.at(-1)!.version + 1,
      statements: () => ["CREATE TABLE half (x TEXT)", "THIS IS NOT SQL"],
    };
    await expect(migrate(driver, [...MIGRATIONS, broken])).rejects.toMatchObject({ class: "store_error" });
    expect(await versions(driver)).toEqual(MIGRATIONS.map((m) => m.version));
    await expect(driver.read((q) => q.all("SELECT * FROM half"))).rejects.toMatchObject({ class: "store_error" });
    await driver.close();
  });

  it("refuses a database whose schema is newer than the code", async () => {
    const database = await newDatabase(dialect);
    const driver = await driverFor(database);
    await migrate(driver);
    await driver.write((tx) => tx.run("INSERT INTO schema_version (version, applied_at) VALUES (99, 0)"));
    await driver.close();
    const err = await stores.open(database).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CountersignError);
    expect(err).toMatchObject({
      class: "store_error",
      boundary: "store",
      retriable: false,
      details: { schema_version: 99 },
    });
    expect((err as Error).message).toMatch(/schema version 99, newer than this countersign knows/);
  });

  it("lets several processes' stores migrate one new database at once", async () => {
    const database = await newDatabase(dialect);
    const opened = await Promise.all([1, 2, 3, 4].map(() => stores.open(database)));
    const driver = await driverFor(database);
    expect(await versions(driver)).toEqual(MIGRATIONS.map((m) => m.version));
    await driver.close();
    expect(opened).toHaveLength(4);
  });
});

describe("migrations on postgres only", () => {
  const stores = opener();
  afterAll(() => stores.closeAll());

  it("compress a request's large texts with lz4 where the server has it", async () => {
    const database = await newDatabase("postgres");
    await stores.open(database);
    const rows = await rawSql(
      database,
      "SELECT attname, attcompression FROM pg_attribute WHERE attrelid = 'requests'::regclass AND attcompression <> '' ORDER BY attname",
    );
    expect(rows).toEqual(
      ["agent_manifests", "facts", "policy", "source"].map((attname) => ({ attname, attcompression: "l" })),
    );
  });
});
