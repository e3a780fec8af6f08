// `npm run soak`: the authority at a steady rate for 10 minutes (not in CI). Submissions of an
// auto-approved and of a pending program, the pending ones decided by a person, receipts redeemed.
// Passes when nothing failed, the authority's RSS at the end is within 1.5× of its RSS after the
// warm-up, and the audit chain verifies afterwards. SOAK_SECONDS, SOAK_RATE and --database
// <url> change the run.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { makeLoginLink } from "../src/app/index.js";
import { packageRoot } from "../src/model/paths.js";

const SECONDS = Number(process.env.SOAK_SECONDS ?? 600);
const RATE = Number(process.env.SOAK_RATE ?? 20); // submissions per second
const WARMUP_SECONDS = Math.min(30, SECONDS / 10);
const database = process.argv.includes("--database") ? process.argv[process.argv.indexOf("--database") + 1] : undefined;
const BIN = join(packageRoot, "bin", "countersign.js");
const example = (name: string) => readFileSync(join(packageRoot, "examples", name), "utf8");

const home = mkdtempSync(join(tmpdir(), "countersign-soak-"));
const dataDir = join(home, ".countersign");
const child: ChildProcess = spawn(
  process.execPath,
  [BIN, "serve", "--port", "0", ...(database === undefined ? [] : ["--database", database])],
  {
    env: { ...process.env, HOME: home, COUNTERSIGN_HOME: dataDir },
    stdio: ["ignore", "pipe", "inherit"],
  },
);
const url = await new Promise<string>((resolve, reject) => {
  let out = "";
  child.stdout!.on("data", (d: Buffer) => {
    out += d.toString();
    const m = /countersign authority at (http:\/\/\S+)/.exec(out);
    if (m !== null) resolve(m[1]!);
  });
  child.once("exit", (code) => reject(new Error(`serve exited (${code})`)));
});
const token = readFileSync(join(dataDir, "submitter.token"), "utf8").trim();
const login = await fetch(`${url}/login?link=${makeLoginLink({ dataDir, now: () => new Date() }, "soak")}`, {
  redirect: "manual",
});
const cookies = login.headers.getSetCookie().map((c) => c.split(";")[0]!);
const session = {
  cookie: cookies.join("; "),
  csrf: cookies.find((c) => c.startsWith("countersign_csrf="))!.split("=")[1]!,
};

const rss = (): number =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))?.[1] ?? NaN) / 1024;
async function call(
  method: string,
  path: string,
  body?: unknown,
  approver = false,
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = approver
    ? { cookie: session.cookie, "x-csrf-token": session.csrf }
    : { authorization: `Bearer ${token}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  const r = await fetch(url + path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await r.text();
  return { status: r.status, body: text.startsWith("{") ? JSON.parse(text) : text };
}

const counts = { submitted: 0, decided: 0, redeemed: 0, errors: 0 };
const errors: string[] = [];
const fail = (what: string) => {
  counts.errors++;
  if (errors.length < 10) errors.push(what);
};
async function one(i: number): Promise<void> {
  const auto = i % 2 === 0;
  const r = await call("POST", "/v1/requests", { program: example(auto ? "read-notes.ts" : "notify-team.ts") });
  if (r.status !== (auto ? 200 : 202)) return fail(`submit ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
  counts.submitted++;
  if (auto) {
    const { jti, exp } = JSON.parse(Buffer.from(r.body.receipt.split(".")[1], "base64url").toString());
    const redeemed = await call("POST", `/v1/receipts/${jti}/redeem`, { exp });
    if (redeemed.status !== 200) return fail(`redeem ${redeemed.status}`);
    counts.redeemed++;
  } else {
    const d = await call(
      "POST",
      `/v1/requests/${r.body.id}/decision`,
      i % 4 === 1 ? { decision: "approved_once" } : { decision: "rejected", reason: "soak" },
      true,
    );
    if (d.status !== 200) return fail(`decide ${d.status}`);
    counts.decided++;
  }
}

const started = Date.now();
let rssAfterWarmup = NaN;
const inFlight = new Set<Promise<void>>();
for (let i = 0; Date.now() - started < SECONDS * 1000; i++) {
  const due = started + (i * 1000) / RATE;
  if (due > Date.now()) await sleep(due - Date.now());
  if (Number.isNaN(rssAfterWarmup) && Date.now() - started >= WARMUP_SECONDS * 1000) rssAfterWarmup = rss();
  const p = one(i).catch((err: unknown) => fail(String(err)));
  inFlight.add(p);
  void p.finally(() => inFlight.delete(p));
  if (i % (RATE * 60) === 0 && i > 0)
    process.stdout.write(
      `${Math.round((Date.now() - started) / 1000)} s: ${JSON.stringify(counts)}, RSS ${rss().toFixed(0)} MiB\n`,
    );
}
await Promise.all(inFlight);
const rssEnd = rss();
const chain = (await call("GET", "/v1/audit/verify", undefined, true)).body;
child.kill("SIGTERM");

const growth = rssEnd / rssAfterWarmup;
const ok = counts.errors === 0 && chain.ok === true && growth <= 1.5;
process.stdout.write(
  `soak ${SECONDS} s at ${RATE}/s on ${database === undefined ? "SQLite" : "PostgreSQL"}: ${JSON.stringify(counts)}; ` +
    `RSS ${rssAfterWarmup.toFixed(0)} MiB after the warm-up, ${rssEnd.toFixed(0)} MiB at the end (${growth.toFixed(2)}×, limit 1.5×); ` +
    `audit chain ${chain.ok ? `verifies (${chain.entries} entries)` : `BROKEN: ${JSON.stringify(chain)}`}${errors.length > 0 ? `\nfirst errors:\n${errors.join("\n")}` : ""}\n${ok ? "PASS" : "FAIL"}\n`,
);
process.exit(ok ? 0 : 1);
