/** The little a store operation needs from a database: queries, transactions, a change doorbell. */

export type SqlValue = string | number | null;
export type Row = Record<string, unknown>;
export type Dialect = "sqlite" | "postgres";

/** SQL is written once with `?` placeholders; the PostgreSQL driver numbers them. */
export interface Queryer {
  all(sql: string, params?: readonly SqlValue[]): Promise<Row[]>;
  /** Runs a statement and answers how many rows it changed. */
  run(sql: string, params?: readonly SqlValue[]): Promise<number>;
}

export interface Tx extends Queryer {
  /** Ring the change doorbell of every listener once this transaction commits (never if it rolls back). */
  notify(): Promise<void>;
  /**
   * Insert `rows` into `into` (`table (column, …)`, each row's values in that order) with as few
   * statements as the database allows; `returning`: the columns to answer for every inserted row
   * (in no promised order).
   */
  insert(into: string, rows: readonly SqlValue[][], returning?: string): Promise<Row[]>;
}

export interface WriteOptions {
  durable?: boolean;
  /**
   * The transaction changes none of what a ReadCache keeps (tokens, remembered rules): it leaves `version` as it is.
   */
  keepsCachedReads?: boolean;
}

export interface Driver {
  readonly dialect: Dialect;
  read<T>(fn: (q: Queryer) => Promise<T>): Promise<T>;
  /**
   * One transaction; committed when `fn` resolves, rolled back when it throws. `fn` may leave its
   * last statements unawaited: the driver waits for every statement it issued and reports the
   * commit only when all of them succeeded (PostgreSQL sends COMMIT behind them, in the same
   * round trip); one that failed rolls the transaction back and is what `write` throws. `durable`:
   * the commit must survive a power cut, not only the process being killed (see the SQLite driver).
   */
  write<T>(fn: (tx: Tx) => Promise<T>, options?: WriteOptions): Promise<T>;
  /**
   * Call `onRing` after each committed transaction that rang: for SQLite the writes of this
   * process (any of its connections to the file), for PostgreSQL every process sharing the database (LISTEN/NOTIFY). A
   * ring carries no
   * data: listeners read what changed from the events table, so a lost ring loses nothing.
   */
  listen(onRing: () => void): Promise<() => Promise<void>>;
  /**
   * A value that changes whenever a transaction that may have changed a cached read committed,
   * in this process or another; undefined when the driver cannot tell (then nothing is cached).
   * `fresh`: it reflects every commit made before this call. Otherwise a driver may answer what
   * it looked up for another process's commits earlier in this turn of the event loop (for
   * PostgreSQL: a read answered in this turn; see postgres-version.ts); the commits of this
   * process count at once either way. A promise when it must be asked of the database
   * (PostgreSQL; a read that had begun already is never reused for a fresh caller).
   */
  version(fresh?: boolean): string | Promise<string> | undefined;
  close(): Promise<void>;
}
