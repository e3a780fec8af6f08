import { resolve } from "node:path";
import { databaseOf } from "../config/data-dir.js"; // a light entry: the app index loads the compiler
import { isPostgresUrl } from "../store/index.js";
import type { Io } from "./command.js";

/**
 * `--database` (or $COUNTERSIGN_DATABASE) as the store needs it: a postgres:// URL as is, a SQLite file resolved
 * against the cwd.
 */
export function databaseFlag(io: Io, given: string | undefined): { database?: string } {
  const database = databaseOf(io.env, given);
  if (database === undefined) return {};
  return { database: isPostgresUrl(database) ? database : resolve(io.cwd, database) };
}
