// Shared pieces of the store tests: submissions with valid facts and decisions, and a way to
// open the same database as many times as a test needs, for each implementation.
import { createHash } from "node:crypto";
import { mkdtempSync } from "node:fs";
import Database from "better-sqlite3";
import pg from "pg";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PolicyDecision } from "../../src/model/decision.js";
import type { Facts } from "../../src/model/facts.js";
import type { SubmitInput } from "../../src/model/request.js";
import { openStore, type Store } from "../../src/store/index.js";
import { freshDatabase } from "./postgres-cluster.js";

export const DIALECTS = ["sqlite", "postgres"] as const;
export type DialectName = (typeof DIALECTS)[number];

/** A new empty database: a SQLite file in a temp dir, or a new database on the run's PostgreSQL. */
export async function newDatabase(dialect: DialectName): Promise<string> {
  if (dialect === "postgres") return freshDatabase();
  return join(mkdtempSync(join(tmpdir(), "countersign-store-")), "countersign.db");
}

/** Open `database` (migrating it); every store opened here is closed by `closeAll`. */
export function opener(now?: () => number): { open(database: string): Promise<Store>; closeAll(): Promise<void> } {
  const open: Store[] = [];
  return {
    async open(database) {
      const store = await openStore({ database, dataDir: tmpdir(), ...(now === undefined ? {} : { now }) });
      open.push(store);
      return store;
    },
    async closeAll() {
      await Promise.all(open.splice(0).map((s) => s.close().catch(() => undefined)));
    },
  };
}

export function sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

let counter = 0;

/** A valid submission: distinct source each time, facts hashed from it, the policy's kind as asked. */
export function submission(
  token: string,
  kind: PolicyDecision["kind"] = "ask",
  extra: Partial<SubmitInput> = {},
): SubmitInput {
  const source = `export default program({ rationale: "n${++counter}", async main() {} });\n`;
  const facts: Facts = {
    program: { sha256: sha256(source), entry: "program.ts" },
    ok: kind !== "auto_rejected",
    diagnostics: [],
    effects: [],
    guarantees: [],
    summary: ["makes no trusted calls"],
    rationale: `n${counter}`,
  };
  const policy: PolicyDecision = {
    kind,
    effects: [],
    guards: [],
    grants: [],
    across: [],
    policy: { sha256: "a".repeat(64) },
    reason: `policy said ${kind}`,
  };
  return { token, source, facts, policy, ...extra };
}

/** A jti as receipts carry it (22 base64url characters). */
export function newJti(): string {
  return createHash("sha256").update(String(Math.random())).digest("base64url").slice(0, 22);
}

/** A clock tests move by hand. */
export function manualClock(start = Date.UTC(2030, 0, 1)): { now: () => number; advance(ms: number): void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

/**
 * Run raw SQL against the database behind the store's back, as an intruder or a broken disk
 * would; answers the rows of a PostgreSQL query (SQLite runs a script and answers none).
 */
export async function rawSql(database: string, sql: string): Promise<unknown[]> {
  if (database.startsWith("postgres://")) {
    const client = new pg.Client({ connectionString: database });
    await client.connect();
    try {
      const result: pg.QueryResult | pg.QueryResult[] = await client.query(sql);
      return Array.isArray(result) ? [] : result.rows; // a script of several statements answers one result each
    } finally {
      await client.end();
    }
  }
  const db = new Database(database);
  try {
    db.exec(sql);
    return [];
  } finally {
    db.close();
  }
}
