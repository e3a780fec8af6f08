// A second "server" process for the concurrency and crash tests: opens the store named on the
// command line, says `ready`, waits for `go` on stdin, does its work and prints one JSON line
// per result. Run with `node --import tsx test/store/child.ts '<json>'`.
import { createInterface } from "node:readline";
import { tmpdir } from "node:os";
import type { PersonDecision } from "../../src/model/request.js";
import { openStore } from "../../src/store/index.js";
import { newJti, submission } from "./fixtures.js";

type Job =
  | { database: string; work: "decide"; id: string; decisions: PersonDecision[] }
  | { database: string; work: "redeem"; jti: string; exp: number; attempts: number }
  | { database: string; work: "issue"; id: string; exp: number; attempts: number }
  | { database: string; work: "submit"; token: string; count: number }
  | { database: string; work: "burst"; token: string };

const job = JSON.parse(process.argv[2] ?? "{}") as Job;
const store = await openStore({ database: job.database, dataDir: tmpdir() });
const print = (value: unknown): boolean => process.stdout.write(`${JSON.stringify(value)}\n`);
print("ready");
const lines = createInterface({ input: process.stdin });
await new Promise<void>((resolve) => lines.once("line", () => resolve()));

if (job.work === "decide") {
  const results = await Promise.all(job.decisions.map((d) => store.decide(job.id, d)));
  for (const r of results) print(r.ok ? { ok: true, changed: r.changed } : { ok: false, reason: r.reason });
} else if (job.work === "redeem") {
  const outcomes = await Promise.all(Array.from({ length: job.attempts }, () => store.redeemReceipt(job.jti, job.exp)));
  for (const o of outcomes) print(o);
} else if (job.work === "issue") {
  // Each attempt records a receipt of its own: what comes back is the receipt handed out.
  const results = await Promise.all(
    Array.from({ length: job.attempts }, () => {
      const jti = newJti();
      return store.recordReceipt({ jti, exp: job.exp, request_id: job.id, token: `signed-${jti}` });
    }),
  );
  for (const r of results) print(r.ok ? r.token : r.reason);
} else if (job.work === "submit") {
  const results = await Promise.all(Array.from({ length: job.count }, () => store.submit(submission(job.token))));
  for (const r of results) print(r.ok ? r.request.id : r.reason);
} else {
  // Submit one after another for ever; a line is printed only once its transaction committed.
  for (;;) {
    const r = await store.submit(submission(job.token));
    if (r.ok) print(r.request.id);
  }
}
lines.close();
await store.close();
