// Store: the authority's whole write path for one request (submit, decide, record the receipt,
// redeem it: four transactions, each with its audit entry) per second, for SQLite and for
// PostgreSQL, next to a bare INSERT into the same database in the same run.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { newRequestId, openStore, type Store } from "../src/store/index.js";
import { freshDatabase, startCluster, stopCluster } from "../test/store/postgres-cluster.js";
import { newJti, submission } from "../test/store/fixtures.js";
import { table, writeSection } from "./report.js";

const SECONDS = 4;

/** Runs `fn` with `parallel` callers for about SECONDS after a warm-up; answers calls per second. */
async function rate(fn: () => Promise<unknown>, parallel = 1): Promise<number> {
  const run = async (ms: number): Promise<number> => {
    let n = 0;
    const end = performance.now() + ms;
    await Promise.all(
      Array.from({ length: parallel }, async () => {
        while (performance.now() < end) {
          await fn();
          n++;
        }
      }),
    );
    return n;
  };
  await run(500);
  const t0 = performance.now();
  const n = await run(SECONDS * 1000);
  return (n * 1000) / (performance.now() - t0);
}

async function cycle(store: Store, token: string): Promise<void> {
  const r = await store.submit(submission(token));
  if (!r.ok) throw new Error("refused");
  await store.decide(r.request.id, { kind: "approved_once", approver: "alice" });
  const jti = newJti();
  const exp = Math.floor(Date.now() / 1000) + 300;
  await store.recordReceipt({ jti, request_id: r.request.id, exp, token: "signed" });
  if (!(await store.redeem(jti, exp))) throw new Error("not redeemed");
}

/** The auto-approved path: the request and its receipt in one transaction. */
async function autoApproved(store: Store, token: string): Promise<void> {
  const receipt = { jti: newJti(), exp: Math.floor(Date.now() / 1000) + 300, token: "signed" };
  const r = await store.submit({ ...submission(token, "auto_approved"), id: newRequestId(), receipt });
  if (!r.ok) throw new Error("refused");
}

const rows: string[][] = [["what", "rate", "transactions/s", "vs bare INSERT"]];
const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
/** `measured`: label → [requests per second, transactions per request]. */
function report(label: string, baseline: number, measured: Record<string, [number, number]>): void {
  rows.push([`${label} baseline: bare INSERT, autocommit`, `${fmt(baseline)}/s`, fmt(baseline), "1.00×"]);
  for (const [what, [perSec, transactions]] of Object.entries(measured)) {
    const tps = perSec * transactions;
    rows.push([`${label}: ${what}`, `${fmt(perSec)} requests/s`, fmt(tps), `${(tps / baseline).toFixed(2)}×`]);
  }
}

// SQLite: a file in a temp dir, the store's pragmas for the baseline too (WAL, synchronous=NORMAL).
{
  const dir = mkdtempSync(join(tmpdir(), "countersign-bench-store-"));
  const bare = new Database(join(dir, "bare.db"));
  bare.pragma("journal_mode = WAL");
  bare.pragma("synchronous = NORMAL");
  bare.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
  const insert = bare.prepare("INSERT INTO t (body) VALUES (?)");
  const baseline = await rate(async () => insert.run("x".repeat(200)));
  bare.close();
  const store = await openStore({ dataDir: dir });
  const { name } = await store.addToken("bench");
  const sequential = await rate(() => cycle(store, name));
  const auto = await rate(() => autoApproved(store, name));
  await store.close();
  report("SQLite", baseline, {
    "submit + decide + receipt + redeem, one caller": [sequential, 4],
    "auto-approved submit with its receipt, one caller": [auto, 1],
  });
}

// PostgreSQL: a cluster of its own on loopback with default durability (fsync on).
const clusterDir = join(mkdtempSync(join(tmpdir(), "countersign-bench-pg-")), "cluster");
try {
  const port = await startCluster(clusterDir);
  const database = await freshDatabase(port);
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  await client.query("CREATE TABLE t (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, body TEXT NOT NULL)");
  const baseline = await rate(() => client.query("INSERT INTO t (body) VALUES ($1)", ["x".repeat(200)]));
  await client.end();
  const store = await openStore({ database, dataDir: clusterDir });
  const { name } = await store.addToken("bench");
  const sequential = await rate(() => cycle(store, name));
  const parallel = await rate(() => cycle(store, name), 8);
  const auto = await rate(() => autoApproved(store, name), 8);
  await store.close();
  report("PostgreSQL", baseline, {
    "the same cycle, one caller": [sequential, 4],
    "the same cycle, 8 callers": [parallel, 4],
    "auto-approved submit with its receipt, 8 callers": [auto, 1],
  });
} finally {
  stopCluster(clusterDir);
}

const body = `${table(rows)}

One request's write path is four transactions (submit, decide, record the receipt, redeem), each
appending its audit entry under the chain-head lock; "transactions/s" counts those. An
auto-approved request is one transaction (the request, its audit entries and its receipt). Every write
is serialised on that lock (one chain, commit-ordered event ids), so parallel callers on
PostgreSQL gain only by overlapping their reads and round trips, and submissions that arrive
together commit together (one transaction, one INSERT per table). SQLite commits in WAL mode with
synchronous=NORMAL, as the baseline does (a commit survives the process being killed; a power cut
may lose the last ones), and a redemption with synchronous=FULL (it survives a power cut, and
syncs every commit before it): the cycle's redeem is its one synced commit.`;
writeSection("store", "Store (SQLite and PostgreSQL)", body);
process.stdout.write(body + "\n");
