import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { makeLoginLink } from "../src/app/index.js";
import { packageRoot } from "../src/model/paths.js";
import { DELIVERIES_PER_SECOND, READ_INTERVAL_MS } from "../src/store/events.js";
import { freshDatabase, startCluster, stopCluster } from "../test/store/postgres-cluster.js";
import { table, writeSection } from "./report.js";
import { authority, startProcess, stop } from "./serve-process.js";

const SECONDS = 8;
const WARM_UP_SECONDS = 5;
const CONNECTIONS = 32;
const STREAMS = [0, 100, 1000];
const ROUNDS = 3;
/** How far apart the authority sends batches with the most streams open. */
const SLOWEST_DELIVERY_MS = Math.max(READ_INTERVAL_MS, (1000 * Math.max(...STREAMS)) / DELIVERIES_PER_SECOND);
const STARTS = 5;
const LOAD_AT_START = loadavg()[0]!;
const PROGRAM = readFileSync(join(packageRoot, "examples", "read-notes.ts"), "utf8"); // auto-approved by the default policy
const repeated = JSON.stringify({ program: PROGRAM, source_name: "read-notes.ts" });

/**
 * A process holding `n` event streams open, reading every byte they carry. It shares the machine's
 * cores with the authority, so it is cheap: one read buffer for all its sockets, and one look per
 * chunk read, for its last event id; only the first stream counts its events one by one. On
 * SIGTERM it says how many that one got, and how many streams had not got the newest event.
 */
const READER = `import { connect } from "node:net";
const [url, cookie, n] = process.argv.slice(2);
const { hostname, port } = new URL(url);
const ID = Buffer.from("\\nid: ");
/** The last whole id in the chunk (its digits end before the chunk does), or 0. */
function lastId(d) {
  for (let at = d.lastIndexOf(ID); at >= 0; at = at === 0 ? -1 : d.lastIndexOf(ID, at - 1)) {
    const end = d.indexOf(10, at + ID.length);
    if (end >= 0) return Number(d.toString("latin1", at + ID.length, end));
  }
  return 0;
}
let open = 0;
let counted = 0;
const lasts = new Array(Number(n)).fill(0);
// One read buffer for every socket, reused by each read (the callback runs before the next read).
const buffer = Buffer.alloc(256 * 1024);
for (let i = 0; i < Number(n); i++) {
  let headers = false;
  const socket = connect({ port: Number(port), host: hostname, onread: { buffer, callback: (size, b) => {
    const d = b.subarray(0, size);
    if (!headers && d.indexOf("\\r\\n\\r\\n") >= 0) { headers = true; if (++open === Number(n)) console.log("streams open " + open); }
    if (i === 0) for (let at = d.indexOf(ID); at >= 0; at = d.indexOf(ID, at + 1)) counted++;
    const id = lastId(d);
    if (id > 0) lasts[i] = id;
  } } });
  socket.on("error", () => undefined);
  socket.write("GET /v1/events HTTP/1.1\\r\\nHost: " + hostname + ":" + port + "\\r\\nCookie: " + cookie + "\\r\\n\\r\\n");
}
if (Number(n) === 0) console.log("streams open 0");
setInterval(() => undefined, 60_000); // alive until told to stop, streams or not
process.on("SIGTERM", () => {
  const newest = lasts.reduce((x, y) => Math.max(x, y), 0);
  console.log("events " + counted + " behind " + lasts.filter((last) => last < newest).length);
  process.exit(0);
});
`;

/**
 * One submission, answered once an analysis thread has warmed (the program's facts are then
 * cached); then wait for every thread to be warm, so that no row is measured while another
 * thread still loads the compiler beside it.
 */
async function firstSubmission(url: string, token: string): Promise<void> {
  const answer = await fetch(`${url}/v1/requests`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: repeated,
  });
  if (!answer.ok) throw new Error(`the first submission failed: ${answer.status}`);
  while (((await (await fetch(`${url}/healthz`)).json()) as { status?: string }).status !== "ready")
    await new Promise((resolve) => setTimeout(resolve, 100));
}

async function rate(url: string, token: string): Promise<number> {
  const options: autocannon.Options = {
    url: `${url}/v1/requests`,
    method: "POST",
    connections: CONNECTIONS,
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: repeated,
  };
  await autocannon({ ...options, duration: WARM_UP_SECONDS });
  const r = await autocannon({ ...options, duration: SECONDS });
  if (r.non2xx + r.errors + r.timeouts > 0) throw new Error(`${r.non2xx + r.errors + r.timeouts} submissions failed`);
  return r.requests.average;
}

async function approverCookie(url: string, home: string): Promise<string> {
  const link = makeLoginLink({ dataDir: join(home, ".countersign"), now: () => new Date() }, "bench");
  const answer = await fetch(`${url}/login?link=${link}`, { redirect: "manual" });
  if (answer.status !== 303) throw new Error(`login failed: ${answer.status}`);
  return answer.headers
    .getSetCookie()
    .map((c) => c.split(";")[0]!)
    .join("; ");
}

const rows: string[][] = [["what", "submissions/s", "vs none open", "events per stream", "target"]];
const fmt = (n: number): string => Math.round(n).toLocaleString("en-US");
const ratios: Record<string, number> = {};

/**
 * The rows of one store: ROUNDS rounds of every stream count, in turn forwards and backwards, so
 * that a machine whose load drifts during the run weighs on every row alike; each row is the
 * median of its rounds, and its ratio the median of its ratios to the round's own baseline.
 */
async function measureStreams(label: string, database?: string): Promise<void> {
  const a = await authority(database);
  await firstSubmission(a.url, a.token);
  const cookie = await approverCookie(a.url, a.home);
  const reader = join(packageRoot, "bench", ".event-stream-reader.mjs");
  writeFileSync(reader, READER);
  const rates = new Map<number, number[]>(STREAMS.map((n) => [n, []]));
  const perStream = new Map<number, number[]>(STREAMS.map((n) => [n, []]));
  const short = new Map<number, number>(); // the most streams that had not got the newest event, in any round
  for (let round = 0; round < ROUNDS; round++) {
    for (const n of round % 2 === 0 ? STREAMS : [...STREAMS].reverse()) {
      const { child } = await startProcess([reader, a.url, cookie, String(n)], {}, /(streams open \d+)/);
      let report = "";
      child.stdout!.on("data", (d: Buffer) => (report += d.toString()));
      const perSecond = await rate(a.url, a.token);
      await new Promise((resolve) => setTimeout(resolve, 2 * SLOWEST_DELIVERY_MS)); // the last batch reaches every stream
      await stop(child);
      if (perSecond === 0) throw new Error(`${label}: no submission was answered with ${n} streams open`);
      rates.get(n)!.push(perSecond);
      if (n > 0) {
        const [, events, behind] = /events (\d+) behind (\d+)/.exec(report) ?? [];
        perStream.get(n)!.push(Number(events ?? 0));
        short.set(n, Math.max(short.get(n) ?? 0, Number(behind ?? n)));
      }
      process.stderr.write(`${label}, round ${round + 1}: ${n} streams open, ${fmt(perSecond)} submissions/s\n`);
    }
  }
  await stop(a.child);
  const none = rates.get(0)!;
  for (const n of STREAMS) {
    const perSecond = median(rates.get(n)!);
    const ratio = median(rates.get(n)!.map((r, round) => r / none[round]!));
    ratios[`${label} ${n}`] = ratio;
    rows.push([
      `${label}: auto-approved, one program repeated, ${n === 0 ? "no" : fmt(n)} event streams open`,
      fmt(perSecond),
      n === 0 ? "baseline" : `${ratio.toFixed(3)}×`,
      n === 0
        ? ""
        : `${fmt(median(perStream.get(n)!))} (of about ${fmt(perSecond * (SECONDS + WARM_UP_SECONDS))} submitted); streams short of the newest: ${short.get(n) ?? 0}`,
      n === 1000 ? "≥ 0.90×" : "",
    ]);
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

await measureStreams("SQLite");
const clusterDir = join(mkdtempSync(join(tmpdir(), "countersign-bench-pg-")), "cluster");
try {
  await measureStreams("PostgreSQL", await freshDatabase(await startCluster(clusterDir)));
} finally {
  stopCluster(clusterDir);
}

/** Milliseconds from spawning `args` to the first answer of `path` at the URL it prints; the median of STARTS starts. */
async function timeToAnswer(args: string[], env: NodeJS.ProcessEnv, pattern: RegExp, path: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < STARTS; i++) {
    const t0 = performance.now();
    const { url, child } = await startProcess(args, env, pattern);
    const answer = await fetch(`${url}${path}`);
    times.push(performance.now() - t0);
    await stop(child);
    if (!answer.ok) throw new Error(`${path}: ${answer.status}`);
  }
  return times.sort((x, y) => x - y)[Math.floor(times.length / 2)]!;
}

const startRows: string[][] = [["what", "time to first answer", "vs bare node", "target"]];
const bareFile = join(packageRoot, "bench", ".bare-node.mjs");
writeFileSync(
  bareFile,
  `import { createServer } from "node:http";\nconst s = createServer((q, r) => r.end("ok")).listen(0, "127.0.0.1", () => console.log("bare at http://127.0.0.1:" + s.address().port));\n`,
);
const bare = await timeToAnswer([bareFile], {}, /bare at (http:\/\/\S+)/, "/");
startRows.push([
  "baseline: a bare Node HTTP server (node:http), spawned, first answer",
  `${fmt(bare)} ms`,
  "1.00×",
  "",
]);
const starts: Record<string, number> = {};
for (const requests of [0, 10_000]) {
  // the store is made (and filled) by one start, then timed over restarts
  const first = await authority();
  if (requests > 0) {
    await firstSubmission(first.url, first.token);
    const headers = { "content-type": "application/json", authorization: `Bearer ${first.token}` };
    const r = await autocannon({
      url: `${first.url}/v1/requests`,
      method: "POST",
      headers,
      body: repeated,
      connections: CONNECTIONS,
      amount: requests - 1,
      timeout: 60,
    });
    if (r.non2xx + r.errors + r.timeouts > 0)
      throw new Error(`filling the store: ${r.non2xx + r.errors + r.timeouts} submissions failed`);
  }
  await stop(first.child);
  const env = { HOME: first.home, COUNTERSIGN_HOME: join(first.home, ".countersign") };
  const ms = await timeToAnswer(
    [join(packageRoot, "bin", "countersign.js"), "serve", "--port", "0"],
    env,
    /countersign authority at (http:\/\/\S+)/,
    "/healthz",
  );
  const what =
    requests === 0
      ? "`countersign serve`, idle SQLite store, first /healthz answer"
      : "`countersign serve`, SQLite store of 10,000 requests, first /healthz answer";
  starts[requests] = ms;
  startRows.push([what, `${fmt(ms)} ms`, `${(ms / bare).toFixed(2)}×`, "≤ 1,000 ms"]);
  process.stderr.write(`${startRows.at(-1)!.join(" | ")}\n`);
}

const body = `${table(rows)}

${table(startRows)}

Event streams: autocannon with ${CONNECTIONS} connections submits one auto-approved program for
${SECONDS} s after ${WARM_UP_SECONDS} s of the same load, while another process holds the streams
open on \`/v1/events\` (an approver session's cookie) and reads everything they carry; each
submission publishes one event, so every stream gets each of them ("events per stream": those the
first stream counted; "short of the newest": streams that had not got the last event ${(2 * SLOWEST_DELIVERY_MS) / 1000} s
after the load stopped). The reader shares the machine's cores with the authority, so it is made
cheap: one reused read buffer for all its sockets, and one look per chunk read, for its last event
id; only the first stream counts its events one by one (before, every stream decoded each chunk to
a string and searched it for every event, and the SQLite row with 1,000 streams measured 0.782×,
PostgreSQL's 0.912×). One server per store, the same
for the three rows, so the ratio compares like with like; ${ROUNDS} rounds of the three, in turn
forwards and backwards, so that a change in the machine's load weighs on every row alike (each
row the median of its rounds, its ratio the median of its ratios to the same round's baseline);
measured once all its analysis threads
are warm (/healthz says ready: before, the first row could run beside a thread still loading the
compiler). The authority reads new events at most every 50 ms (less often the more streams are
open: about 2,000 deliveries a second in all, so every 500 ms with 1,000 streams), however many
commits rang, and hands each stream the whole batch as one write of bytes made once for all of
them, straight to its socket; a stream whose client stops
reading is ended past 256 KiB unsent (the client reconnects with its last id and reads the rest
from the events table). Before, each commit was one write to every stream, through a web stream:
0.14× (SQLite) and 0.22× (PostgreSQL) with 1,000 streams open, 0.92× and 0.55× with 100 (on this
machine, 2026-11-28, under a load average of 13-15).

Start-up: the median of ${STARTS} starts of each, from spawning the process to the first answer at
the URL it prints. The store was made, and filled through the API, by an earlier start on the same
data directory. \`serve\` opens the store, checks the data directory and listens, then prints its
URL; the routes, the use cases, the configuration and the compiler load after that (a request
other than /healthz waits for them), and the analysis threads start last (a program submitted
meanwhile waits for one). /healthz says \`"status": "starting"\` until the threads are warm, then
\`"ready"\`. Before, \`serve\` loaded everything before it listened: 4,540 ms idle and 5,647 ms
with 10,000 requests, 3.9× and 4.9× the bare server. A bare Node server is the floor: a process
start and one module.
The machine is shared: 1-minute load average ${LOAD_AT_START.toFixed(1)} when the run began, ${loadavg()[0]!.toFixed(1)} when it ended.

Targets met in this run: ${[
  ...["SQLite", "PostgreSQL"].map((db): [string, boolean] => [
    `${db} 1,000 streams ≥ 0.90×`,
    (ratios[`${db} 1000`] ?? 0) >= 0.9,
  ]),
  ...[0, 10_000].map((n): [string, boolean] => [
    `start-up ≤ 1 s with ${fmt(n)} requests`,
    (starts[n] ?? Infinity) <= 1000,
  ]),
]
  .map(([what, ok]) => `${what}: ${ok ? "yes" : "no"}`)
  .join("; ")}.`;
writeSection("authority-streams", "Authority: open event streams and start-up", body);
process.stdout.write(body + "\n");
