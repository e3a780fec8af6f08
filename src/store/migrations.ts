import { CountersignError } from "../model/index.js";
import type { Dialect, Driver } from "./driver.js";

/** Column types that differ between the dialects; everything else is the same SQL. */
interface Types {
  dialect: Dialect;
  int: string; // 64-bit integer
  serial: string; // an increasing integer key
}
const TYPES: Record<Dialect, Types> = {
  sqlite: { dialect: "sqlite", int: "INTEGER", serial: "INTEGER PRIMARY KEY AUTOINCREMENT" },
  postgres: { dialect: "postgres", int: "BIGINT", serial: "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY" },
};

export interface Migration {
  version: number;
  statements(t: Types): string[];
}

const GENESIS = "0".repeat(64);

/** Numbered, append-only: a released migration is never edited, a change is a new one. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    statements: (t) => [
      `CREATE TABLE tokens (
        name TEXT PRIMARY KEY,
        hash TEXT NOT NULL UNIQUE,
        created_at ${t.int} NOT NULL,
        revoked_at ${t.int})`,
      `CREATE TABLE requests (
        seq ${t.serial},
        id TEXT NOT NULL UNIQUE,
        token TEXT NOT NULL,
        status TEXT NOT NULL,
        source TEXT NOT NULL,
        facts TEXT NOT NULL,
        policy TEXT NOT NULL,
        created_at ${t.int} NOT NULL,
        deadline_at ${t.int} NOT NULL,
        decision TEXT,
        approver TEXT,
        reason TEXT,
        feedback TEXT,
        decided_at ${t.int})`,
      "CREATE INDEX requests_status_seq ON requests (status, seq)",
      "CREATE INDEX requests_pending_deadline ON requests (deadline_at) WHERE status = 'pending'",
      `CREATE TABLE receipts (
        jti TEXT PRIMARY KEY,
        request_id TEXT NOT NULL REFERENCES requests (id),
        exp ${t.int} NOT NULL,
        issued_at ${t.int} NOT NULL,
        redeemed_at ${t.int})`,
      "CREATE INDEX receipts_request ON receipts (request_id)",
      `CREATE TABLE remembered_rules (
        id TEXT PRIMARY KEY,
        request_id TEXT NOT NULL REFERENCES requests (id),
        op TEXT NOT NULL,
        rule TEXT NOT NULL,
        created_at ${t.int} NOT NULL,
        forgotten_at ${t.int})`,
      `CREATE TABLE audit (
        id ${t.int} PRIMARY KEY,
        at ${t.int} NOT NULL,
        type TEXT NOT NULL,
        request_id TEXT,
        actor TEXT,
        details TEXT NOT NULL,
        prev_hash TEXT NOT NULL,
        hash TEXT NOT NULL)`,
      // The chain head: one row, locked by every writer, so that two processes never fork the chain.
      `CREATE TABLE audit_head (
        one ${t.int} PRIMARY KEY CHECK (one = 1),
        last_id ${t.int} NOT NULL,
        last_hash TEXT NOT NULL)`,
      `INSERT INTO audit_head (one, last_id, last_hash) VALUES (1, 0, '${GENESIS}')`,
      // Change events for the approver UI; the id is the audit entry that records the change.
      `CREATE TABLE events (
        id ${t.int} PRIMARY KEY,
        type TEXT NOT NULL,
        request_id TEXT NOT NULL,
        status TEXT NOT NULL,
        at ${t.int} NOT NULL)`,
    ],
  },
  {
    version: 2,
    statements: (t) => [
      "ALTER TABLE requests ADD COLUMN rationale TEXT",
      // One row per approver login link used: a link works once, across restarts and processes.
      `CREATE TABLE login_links (
        nonce TEXT PRIMARY KEY,
        exp ${t.int} NOT NULL,
        used_at ${t.int} NOT NULL)`,
    ],
  },
  {
    version: 3,
    // A remembered rule's scope and lifetime: one submitter token (null: every agent), and when it
    // stops applying (null: until forgotten). Rules saved before keep both null, as they were.
    statements: (t) => [
      "ALTER TABLE remembered_rules ADD COLUMN token TEXT",
      `ALTER TABLE remembered_rules ADD COLUMN expires_at ${t.int}`,
    ],
  },
  {
    version: 4,
    // The canonical text of the agent manifests a request was submitted with (null: none). Requests
    // stored before keep only the hash in their facts.
    statements: () => ["ALTER TABLE requests ADD COLUMN agent_manifests TEXT"],
  },
  {
    version: 5,
    // PostgreSQL: a counter that every change to tokens or remembered rules bumps in its own
    // transaction, whoever makes it (another server, the CLI, bare SQL), so that one read of it
    // tells a server whether what it keeps in memory is still current (see the PostgreSQL driver).
    // SQLite has that counter built in (PRAGMA data_version).
    statements: (t) =>
      t.dialect === "sqlite"
        ? []
        : [
            `CREATE TABLE reads_version (one ${t.int} PRIMARY KEY CHECK (one = 1), n ${t.int} NOT NULL)`,
            "INSERT INTO reads_version (one, n) VALUES (1, 0)",
            `CREATE FUNCTION countersign_bump_reads_version() RETURNS trigger LANGUAGE plpgsql AS $$
              BEGIN
                UPDATE reads_version SET n = n + 1 WHERE one = 1;
                RETURN NULL;
              END $$`,
            ...["tokens", "remembered_rules"].map(
              (table) =>
                `CREATE TRIGGER ${table}_bump_reads_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${table}
                  FOR EACH STATEMENT EXECUTE FUNCTION countersign_bump_reads_version()`,
            ),
          ],
  },
  {
    version: 6,
    // PostgreSQL compresses a request's larger texts (facts, policy, source: a few kB together) on
    // every insert; its default, pglz, took a fifth of the server's CPU under repeated submissions,
    // lz4 a fraction of that. A server built without lz4 keeps pglz.
    statements: (t) =>
      t.dialect === "sqlite"
        ? []
        : [
            `DO $$
              BEGIN
                ${["source", "facts", "policy", "agent_manifests"].map((c) => `ALTER TABLE requests ALTER COLUMN ${c} SET COMPRESSION lz4;`).join("\n                ")}
              EXCEPTION WHEN feature_not_supported THEN NULL;
              END $$`,
          ],
  },
  {
    version: 7,
    // PostgreSQL: what lets a change build on the chain head its process last left, and the
    // submitter tokens it last saw active, without reading them first (change.ts expectHead): each
    // checks under the head's lock and fails the transaction with its own SQLSTATE otherwise.
    statements: (t) =>
      t.dialect === "sqlite"
        ? []
        : [
            `CREATE FUNCTION countersign_expect_head(expected_id BIGINT, expected_hash TEXT) RETURNS void LANGUAGE plpgsql AS $$
              BEGIN
                PERFORM 1 FROM audit_head WHERE one = 1 AND last_id = expected_id AND last_hash = expected_hash FOR UPDATE;
                IF NOT FOUND THEN
                  RAISE EXCEPTION 'the audit chain head moved' USING ERRCODE = 'CS001';
                END IF;
              END $$`,
            `CREATE FUNCTION countersign_expect_active_token(token_name TEXT) RETURNS void LANGUAGE plpgsql AS $$
              BEGIN
                PERFORM 1 FROM tokens WHERE name = token_name AND revoked_at IS NULL;
                IF NOT FOUND THEN
                  RAISE EXCEPTION 'the submitter token % is not active', token_name USING ERRCODE = 'CS002';
                END IF;
              END $$`,
          ],
  },
  {
    version: 8,
    // A receipt's signed text: every read of the decision hands out the same receipt while it is
    // valid, instead of signing and storing a new one. Receipts issued before keep it null.
    statements: () => ["ALTER TABLE receipts ADD COLUMN token TEXT"],
  },
  {
    version: 9,
    // What each run gave its agent back (the untrusted texts of its output), read against the
    // agent's later programs: one row per request, found by token and time.
    statements: (t) => [
      `CREATE TABLE given_texts (
        request_id TEXT PRIMARY KEY REFERENCES requests (id),
        token TEXT NOT NULL,
        session TEXT,
        at ${t.int} NOT NULL,
        texts TEXT NOT NULL)`,
      "CREATE INDEX given_texts_token_at ON given_texts (token, at)",
    ],
  },
  {
    version: 10,
    // Quarantined results: values of a run held back from its submitter, each readable by that
    // submitter alone (a program's fromHandle) until it expires.
    statements: (t) => [
      `CREATE TABLE handles (
        id TEXT PRIMARY KEY,
        submitter TEXT NOT NULL,
        request_id TEXT NOT NULL,
        from_ops TEXT NOT NULL,
        path TEXT NOT NULL,
        value TEXT NOT NULL,
        created_at ${t.int} NOT NULL,
        expires_at ${t.int} NOT NULL)`,
      "CREATE INDEX handles_expires ON handles (expires_at)",
    ],
  },
  {
    version: 11,
    // Signed heads of the audit chain (compact JWS, signed with the authority's key): a suffix
    // rewritten or cut off after one was signed no longer matches it.
    statements: (t) => [
      // One per size and signing key: authorities sharing a database each sign with their own.
      `CREATE TABLE audit_checkpoints (
        size ${t.int} NOT NULL,
        kid TEXT NOT NULL,
        head TEXT NOT NULL,
        at ${t.int} NOT NULL,
        jws TEXT NOT NULL,
        PRIMARY KEY (size, kid))`,
    ],
  },
];

/** Any constant: the PostgreSQL advisory lock that lets one process at a time migrate. */
const MIGRATION_LOCK = 744_211_001;

/**
 * Bring the schema up to date in one transaction, at open. Idempotent; refuses a database whose
 * schema is newer than this code (an older countersign must not write to it).
 */
export async function migrate(driver: Driver, migrations: readonly Migration[] = MIGRATIONS): Promise<number> {
  const t = TYPES[driver.dialect];
  const latest = migrations.at(-1)?.version ?? 0;
  return driver.write(async (tx) => {
    if (driver.dialect === "postgres") await tx.all(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
    await tx.run(
      `CREATE TABLE IF NOT EXISTS schema_version (version ${t.int} PRIMARY KEY, applied_at ${t.int} NOT NULL)`,
    );
    const current = Number((await tx.all("SELECT MAX(version) AS v FROM schema_version"))[0]?.v ?? 0);
    if (current > latest) {
      throw new CountersignError(
        "store_error",
        "store",
        `the database has schema version ${current}, newer than this countersign knows (${latest}): upgrade countersign or use another database`,
        { details: { schema_version: current, supported: latest } },
      );
    }
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      for (const statement of migration.statements(t)) await tx.run(statement);
      await tx.run("INSERT INTO schema_version (version, applied_at) VALUES (?, ?)", [migration.version, Date.now()]);
    }
    return latest;
  });
}
