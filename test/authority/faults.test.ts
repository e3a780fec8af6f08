// Slow: it kills and restarts authorities and PostgreSQL, and fills a tmpfs, waiting for each to recover.
// Faults under a running authority: killed in the middle of a burst, its PostgreSQL stopped and
// started again, its data directory full or read-only, and two of them deciding the same requests.
// Loopback only, bounded in count and time.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { makeLoginLink } from "../../src/app/index.js";
import { DIALECTS, newDatabase } from "../store/fixtures.js";
import { freshDatabase, runCluster, startCluster, stopCluster } from "../store/postgres-cluster.js";
import { isolatedEnv } from "../support/isolated-env.js";
import { tmpfs } from "../support/tmpfs.js";
import { example, startTestAuthority, type TestAuthority } from "./harness.js";
import { callServe, loginServe, startServe, type ServeProcess } from "./serve-process.js";

const running: ServeProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.kill().catch(() => undefined)));
});
async function serve(env: NodeJS.ProcessEnv): Promise<ServeProcess> {
  const p = await startServe(env);
  running.push(p);
  return p;
}
const tokenOf = (env: NodeJS.ProcessEnv) => readFileSync(join(env.COUNTERSIGN_HOME!, "submitter.token"), "utf8").trim();
const link = (env: NodeJS.ProcessEnv, who: string) =>
  makeLoginLink({ dataDir: env.COUNTERSIGN_HOME!, now: () => new Date() }, who);
const jtiOf = (receipt: string): string => JSON.parse(Buffer.from(receipt.split(".")[1]!, "base64url").toString()).jti;
const auditOf = async (url: string, session: { cookie: string; csrf: string }) =>
  String((await callServe(url, "GET", "/v1/audit", session)).body)
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { type: string; request_id: string | null; details: Record<string, unknown> });

describe.each(DIALECTS)("serve over %s, SIGKILLed during a burst of submissions and decisions", (dialect) => {
  it("keeps every acknowledged request and decision, and every receipt it handed out has its audit entry", async () => {
    const env = isolatedEnv(dialect === "postgres" ? { COUNTERSIGN_DATABASE: await newDatabase("postgres") } : {});
    const first = await serve(env);
    const token = tokenOf(env);
    const session = await loginServe(first.url, link(env, "alice"));
    const submitted = new Map<string, string>(); // acknowledged request id → status answered
    const decided = new Map<string, string>(); // acknowledged decision: request id → kind
    const receipts: string[] = [];
    const queue: string[] = [];
    let stop = false;
    const worker = async (n: number) => {
      for (let i = 0; !stop; i++) {
        try {
          if ((n + i) % 3 === 0 && queue.length > 0) {
            const id = queue.shift()!;
            const kind = i % 2 === 0 ? "approved_once" : "rejected";
            const r = await callServe(first.url, "POST", `/v1/requests/${id}/decision`, {
              ...session,
              body: { decision: kind, ...(kind === "rejected" ? { reason: "no" } : {}) },
            });
            if (r.status !== 200) throw new Error(`decision answered ${r.status}`);
            decided.set(id, kind);
            if (kind === "approved_once") {
              const d = await callServe(first.url, "GET", `/v1/requests/${id}/decision`, { token });
              if (d.status === 200) receipts.push(d.body.receipt);
            }
          } else {
            const name = (n + i) % 2 === 0 ? "read-notes.ts" : "notify-team.ts";
            const r = await callServe(first.url, "POST", "/v1/requests", { token, body: { program: example(name) } });
            if (r.status !== 200 && r.status !== 202) throw new Error(`submit answered ${r.status}`);
            submitted.set(r.body.id, r.body.status);
            if (r.body.receipt !== undefined) receipts.push(r.body.receipt);
            if (r.body.status === "pending") queue.push(r.body.id);
          }
        } catch (err) {
          if (!stop) throw err;
        }
      }
    };
    const workers = Array.from({ length: 6 }, (_, n) => worker(n));
    await expect
      .poll(() => submitted.size + decided.size, { timeout: 60_000, interval: 10 })
      .toBeGreaterThanOrEqual(40);
    stop = true;
    await first.kill();
    await Promise.all(workers);
    expect(decided.size).toBeGreaterThan(3);
    expect(receipts.length).toBeGreaterThan(3);

    const second = await serve(env);
    const again = await loginServe(second.url, link(env, "bob"));
    for (const [id, status] of submitted) {
      const view = (await callServe(second.url, "GET", `/v1/requests/${id}`, { token })).body;
      if (decided.has(id)) expect(view.status).toBe(decided.get(id) === "approved_once" ? "approved" : "rejected");
      else if (status !== "pending") expect(view.status).toBe(status);
      else expect(["pending", "approved", "rejected"]).toContain(view.status); // a decision may have committed as the process died
    }
    expect((await callServe(second.url, "GET", "/v1/audit/verify", again)).body).toMatchObject({ ok: true });
    const issued = new Set(
      (await auditOf(second.url, again)).filter((e) => e.type === "receipt_issued").map((e) => e.details.jti),
    );
    for (const receipt of receipts) expect(issued.has(jtiOf(receipt))).toBe(true);
    expect(await second.stop()).toBe(0);
  }, 180_000);
});

describe("PostgreSQL stopped and started again under a running authority", () => {
  const dir = join(mkdtempSync(join(tmpdir(), "countersign-pgdown-")), "cluster");
  let a: TestAuthority | undefined;
  afterAll(async () => {
    await a?.close().catch(() => undefined);
    stopCluster(dir);
  });

  it("answers 503 store_error while it is down, issues nothing, and serves again by itself once it is back", async () => {
    const port = await startCluster(dir);
    a = await startTestAuthority("postgres", { database: await freshDatabase(port) });
    const alice = await a.login("alice");
    const pending = (await a.call("POST", "/v1/requests", { body: { program: example("notify-team.ts") } })).body
      .id as string;
    const approved = (await a.call("POST", "/v1/requests", { body: { program: example("notify-team.ts") } })).body
      .id as string;
    expect(
      (
        await a.call("POST", `/v1/requests/${approved}/decision`, {
          session: alice,
          body: { decision: "approved_once" },
        })
      ).status,
    ).toBe(200);
    const before = (await a.call("POST", "/v1/requests", { body: { program: example("read-notes.ts") } })).body;
    expect(before.receipt).toEqual(expect.any(String));

    stopCluster(dir);
    const down = [
      await a.call("POST", "/v1/requests", { body: { program: example("read-notes.ts") } }),
      await a.call("POST", `/v1/requests/${pending}/decision`, { session: alice, body: { decision: "approved_once" } }),
      await a.call("GET", `/v1/requests/${approved}/decision`),
      await a.call("POST", `/v1/receipts/${jtiOf(before.receipt)}/redeem`, { body: { exp: 2_000_000_000 } }),
    ];
    for (const answer of down) {
      expect(answer.status).toBe(503);
      expect(answer.body.error).toMatchObject({ class: "store_error", retriable: true });
      expect(JSON.stringify(answer.body)).not.toMatch(/"receipt"|eyJ/);
    }

    runCluster(dir, port);
    await expect
      .poll(
        async () => (await a!.call("POST", "/v1/requests", { body: { program: example("read-notes.ts") } })).status,
        { timeout: 30_000, interval: 250 },
      )
      .toBe(200);
    expect((await a.call("GET", `/v1/requests/${pending}`)).body.status).toBe("pending");
    const receipt = (await a.call("GET", `/v1/requests/${approved}/decision`)).body.receipt as string;
    expect(
      (
        await a.call("POST", `/v1/receipts/${jtiOf(before.receipt)}/redeem`, {
          body: { exp: JSON.parse(Buffer.from(before.receipt.split(".")[1], "base64url").toString()).exp },
        })
      ).status,
    ).toBe(200);
    expect((await a.call("GET", "/v1/audit/verify", { session: alice })).body).toMatchObject({ ok: true });
    const audit = String((await a.call("GET", "/v1/audit", { session: alice })).body)
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const issued = audit.filter((e) => e.type === "receipt_issued").map((e) => e.details.jti);
    expect(issued).toContain(jtiOf(receipt));
    expect(issued).toContain(jtiOf(before.receipt));
    expect(audit.filter((e) => e.type === "decided" && e.request_id === pending)).toEqual([]);
  }, 120_000);
});

describe("an authority whose data directory fills up or turns read-only", () => {
  const mounts: { unmount(): void }[] = [];
  let a: TestAuthority | undefined;
  afterAll(async () => {
    await a?.close().catch(() => undefined);
    for (const m of mounts) m.unmount();
  });

  it("answers 503 store_error with no receipt when full, refuses to start read-only, keeps what it acknowledged, and recovers", async () => {
    const fs = tmpfs("8m");
    mounts.push(fs);
    a = await startTestAuthority("sqlite", { dataDir: join(fs.dir, "home"), database: join(fs.dir, "countersign.db") });
    const alice = await a.login("alice");
    const acknowledged = [
      (await a.call("POST", "/v1/requests", { body: { program: example("notify-team.ts") } })).body.id as string,
    ];
    const expectRefused = async () => {
      const answer = await a!.call("POST", "/v1/requests", { body: { program: example("read-notes.ts") } });
      expect(answer.status).toBe(503);
      expect(answer.body.error).toMatchObject({ class: "store_error" });
      expect(JSON.stringify(answer.body)).not.toMatch(/"receipt"|eyJ/);
    };

    // full: a filler takes every free block, then the database cannot grow its WAL
    const filler = join(fs.dir, "filler");
    try {
      execFileSync("dd", ["if=/dev/zero", `of=${filler}`, "bs=64k"], { stdio: "ignore" });
    } catch {
      // dd stops with "No space left on device": the point
    }
    await expectRefused();
    rmSync(filler);
    acknowledged.push((await a.call("POST", "/v1/requests", { body: { program: example("notify-team.ts") } })).body.id);

    const after = await a.call("POST", "/v1/requests", { body: { program: example("read-notes.ts") } });
    expect(after).toMatchObject({ status: 200, body: { receipt: expect.any(String) } });
    for (const id of acknowledged) expect((await a.call("GET", `/v1/requests/${id}`)).body.status).toBe("pending");
    expect((await a.call("GET", "/v1/audit/verify", { session: alice })).body).toMatchObject({ ok: true });

    // read-only (a directory cannot turn read-only under open files): the next start refuses with the reason
    await a.close();
    fs.remount("ro");
    let readOnly: TestAuthority | undefined;
    const refused = await startTestAuthority("sqlite", {
      dataDir: join(fs.dir, "home"),
      database: join(fs.dir, "countersign.db"),
    }).then(
      async (started) => {
        readOnly = started;
        return started.call("POST", "/v1/requests", { body: { program: example("read-notes.ts") } });
      },
      (err: unknown) => ({ status: 503, body: { error: err } }),
    );
    expect(refused.status).toBe(503);
    expect(refused.body.error).toMatchObject({
      class: "store_error",
      message: expect.stringMatching(/read-only|readonly|unable to open|cannot open/i),
    });
    await readOnly?.close();

    // a restart on the same directory, writable again, finds it whole
    fs.remount("rw");
    a = await startTestAuthority("sqlite", { dataDir: join(fs.dir, "home"), database: join(fs.dir, "countersign.db") });
    for (const id of acknowledged) expect((await a.call("GET", `/v1/requests/${id}`)).body.status).toBe("pending");
    expect((await a.call("GET", "/v1/audit/verify", { session: await a.login("alice") })).body).toMatchObject({
      ok: true,
    });
    expect((await a.call("POST", "/v1/requests", { body: { program: example("read-notes.ts") } })).status).toBe(200);
  }, 120_000);
});

describe("two serve processes on one PostgreSQL database under load", () => {
  it("decide each request once between them and redeem each receipt once", async () => {
    const database = await newDatabase("postgres");
    const envA = isolatedEnv({ COUNTERSIGN_DATABASE: database });
    const envB = isolatedEnv({ COUNTERSIGN_DATABASE: database });
    const [a, b] = [await serve(envA), await serve(envB)];
    const token = tokenOf(envA);
    const sessions = [await loginServe(a.url, link(envA, "alice")), await loginServe(b.url, link(envB, "bob"))];
    const urls = [a.url, b.url];
    const submit = (i: number, name: string) =>
      callServe(urls[i % 2]!, "POST", "/v1/requests", { token, body: { program: example(name) } });
    const pending = (await Promise.all(Array.from({ length: 12 }, (_, i) => submit(i, "notify-team.ts")))).map(
      (r) => r.body.id as string,
    );
    const auto = (await Promise.all(Array.from({ length: 12 }, (_, i) => submit(i, "read-notes.ts")))).map(
      (r) => r.body.receipt as string,
    );

    // each request: alice on A approves while bob on B rejects (or approves too, every third)
    const answers = await Promise.all(
      pending.flatMap((id, i) =>
        [0, 1].map((side) => {
          const decision =
            side === 0 || i % 3 === 0 ? { decision: "approved_once" } : { decision: "rejected", reason: "no" };
          return callServe(urls[side]!, "POST", `/v1/requests/${id}/decision`, {
            ...sessions[side]!,
            body: decision,
          }).then((r) => ({ id, side, decision: decision.decision, ...r }));
        }),
      ),
    );
    for (const id of pending) {
      const pair = answers.filter((x) => x.id === id);
      const won = pair.filter((x) => x.status === 200 && x.body.changed === true);
      const seen = JSON.stringify(
        pair.map((x) => [x.side, x.decision, x.status, x.body.changed ?? x.body.error?.message]),
      );
      expect(won, seen).toHaveLength(1);
      const other = pair.find((x) => x !== won[0])!;
      if (other.decision === won[0]!.decision)
        expect(other, seen).toMatchObject({ status: 200, body: { changed: false } });
      else expect(other.status, seen).toBe(409);
      const view = (await callServe(urls[1 - won[0]!.side]!, "GET", `/v1/requests/${id}`, { token })).body;
      expect(view.status).toBe(won[0]!.decision === "approved_once" ? "approved" : "rejected");
    }

    // each receipt: redeemed from both sides at once, four times each
    const redemptions = await Promise.all(
      auto.flatMap((receipt) => {
        const { jti, exp } = JSON.parse(Buffer.from(receipt.split(".")[1]!, "base64url").toString());
        return Array.from({ length: 8 }, (_, k) =>
          callServe(urls[k % 2]!, "POST", `/v1/receipts/${jti}/redeem`, { token, body: { exp } }).then((r) => ({
            jti,
            status: r.status,
            error: r.body.error?.message,
          })),
        );
      }),
    );
    for (const receipt of auto) {
      const statuses = redemptions
        .filter((r) => r.jti === jtiOf(receipt))
        .map((r) => r.status)
        .sort();
      expect(statuses, JSON.stringify(redemptions.filter((r) => r.jti === jtiOf(receipt)))).toEqual([
        200,
        ...Array(7).fill(409),
      ]);
    }
    const audit = await auditOf(a.url, sessions[0]!);
    expect((await callServe(b.url, "GET", "/v1/audit/verify", sessions[1]!)).body).toMatchObject({ ok: true });
    for (const id of pending) expect(audit.filter((e) => e.type === "decided" && e.request_id === id)).toHaveLength(1);
    expect(audit.filter((e) => e.type === "redeemed")).toHaveLength(auto.length);
  }, 180_000);
});
