import { join } from "node:path";
import { makePrivateDir } from "../model/index.js";
import { requireWritableDir } from "./data-dir-files.js";
import { migrate } from "./migrations.js";
import { openPostgresDriver } from "./postgres-driver.js";
import { openSqliteDriver } from "./sqlite-driver.js";
import { Store } from "./store.js";
import type { Driver } from "./driver.js";

/** The embedded store's file in the data directory. */
export const SQLITE_FILE = "countersign.db";

export interface OpenStoreOptions {
  /** `postgres://…` / `postgresql://…`, or a SQLite file path; default: the data directory's SQLite file. */
  database?: string;
  dataDir: string;
  /** ms since the epoch; injectable for tests. */
  now?: () => number;
  /** PostgreSQL pool size. */
  maxConnections?: number;
}

export function isPostgresUrl(database: string): boolean {
  return /^postgres(ql)?:\/\//i.test(database);
}

/** Open (and migrate) the store `serve --database` names. A failure is a store_error. */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  if (options.database === undefined) {
    // the embedded store lives in the data directory, made on first use
    requireWritableDir(options.dataDir);
    makePrivateDir(options.dataDir);
  }
  const database = options.database ?? join(options.dataDir, SQLITE_FILE);
  const driver = isPostgresUrl(database)
    ? await openPostgresDriver(database, options.maxConnections === undefined ? {} : { max: options.maxConnections })
    : openSqliteDriver(database);
  return storeOver(driver, options.now);
}

/** Migrate, then wrap; the driver is closed again when the schema cannot be used. */
export async function storeOver(driver: Driver, now?: () => number): Promise<Store> {
  try {
    await migrate(driver);
  } catch (err) {
    await driver.close().catch(() => undefined);
    throw err;
  }
  return new Store(driver, now);
}
