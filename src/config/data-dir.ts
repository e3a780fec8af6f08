import { userInfo } from "node:os";
import { join, resolve } from "node:path";
import { CountersignError } from "../model/errors-plain.js"; // a light entry: the model index loads zod

/**
 * The user's data directory: $COUNTERSIGN_HOME, default `<home>/.countersign`. An empty
 * COUNTERSIGN_HOME is a mistake (an unset variable expanded in a script), never a reason to fall
 * back to the real home: it would read and write another directory than the one meant.
 */
export function dataDir(env: NodeJS.ProcessEnv): string {
  const own = env.COUNTERSIGN_HOME;
  if (own === undefined) return join(homeDir(env), ".countersign");
  if (own.trim() === "") {
    throw new CountersignError(
      "config_error",
      "cli",
      "COUNTERSIGN_HOME is set but empty: set it to a directory, or unset it to use ~/.countersign",
      {
        details: { variable: "COUNTERSIGN_HOME" },
      },
    );
  }
  return resolve(own);
}

/**
 * The home directory `~` stands for, for the user whose environment this is: $HOME when set, else
 * the account's home from the password database. Every command resolves `~` through this.
 */
export function homeDir(env: NodeJS.ProcessEnv): string {
  const home = env.HOME;
  return home !== undefined && home !== "" ? resolve(home) : userInfo().homedir;
}

/**
 * The store a command on this machine uses: --database, else $COUNTERSIGN_DATABASE, else the data directory's SQLite
 * file (undefined).
 */
export function databaseOf(env: NodeJS.ProcessEnv, given?: string): string | undefined {
  return (
    given ??
    (env.COUNTERSIGN_DATABASE === undefined || env.COUNTERSIGN_DATABASE === "" ? undefined : env.COUNTERSIGN_DATABASE)
  );
}
