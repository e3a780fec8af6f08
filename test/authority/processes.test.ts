// Slow: each test starts `countersign serve` processes through tsx and restarts them on the same data.
// Real `countersign serve` processes: killed with SIGKILL and started again on the same data, and
// two of them sharing one PostgreSQL database.
import { execFile } from "node:child_process";
import { readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { makeLoginLink } from "../../src/app/index.js";
import { importJwks, verifyReceipt } from "../../src/receipt/index.js";
import { DIALECTS, newDatabase } from "../store/fixtures.js";
import { isolatedEnv } from "../support/isolated-env.js";
import { example } from "./harness.js";
import { callServe, loginServe, startServe, type ServeProcess } from "./serve-process.js";

const running: ServeProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.kill().catch(() => undefined)));
});

async function serve(env: NodeJS.ProcessEnv, args: string[] = []): Promise<ServeProcess> {
  const p = await startServe(env, args);
  running.push(p);
  return p;
}

const link = (env: NodeJS.ProcessEnv, who: string) =>
  makeLoginLink({ dataDir: env.COUNTERSIGN_HOME!, now: () => new Date() }, who);
const tokenOf = (env: NodeJS.ProcessEnv) => readFileSync(join(env.COUNTERSIGN_HOME!, "submitter.token"), "utf8").trim();
const utf8 = (text: string) => new TextEncoder().encode(text);

/** The countersign CLI as a process of its own (its own connection to the store); answers its stdout. */
async function cli(env: NodeJS.ProcessEnv, ...args: string[]): Promise<string> {
  const bin = fileURLToPath(new URL("../../src/cli/bin.ts", import.meta.url));
  return (
    await promisify(execFile)(process.execPath, ["--import", "tsx", bin, ...args], { env: { ...process.env, ...env } })
  ).stdout;
}

describe.each(DIALECTS)("serve over %s, killed and started again", (dialect) => {
  it("keeps pending requests pending, decisions intact, receipts valid, and the audit chain whole", async () => {
    const env = isolatedEnv(dialect === "postgres" ? { COUNTERSIGN_DATABASE: await newDatabase("postgres") } : {});
    const first = await serve(env);
    const token = tokenOf(env);
    const submit = async (name: string) =>
      (
        await callServe(first.url, "POST", "/v1/requests", {
          token,
          body: { program: example(name), source_name: name },
        })
      ).body;
    const pending = [await submit("notify-team.ts"), await submit("notify-team.ts")];
    const decided = await submit("notify-team.ts");
    const session = await loginServe(first.url, link(env, "alice"));
    expect(
      (
        await callServe(first.url, "POST", `/v1/requests/${decided.id}/decision`, {
          ...session,
          body: { decision: "approved_once" },
        })
      ).status,
    ).toBe(200);
    const approvedReceipt = (await callServe(first.url, "GET", `/v1/requests/${decided.id}/decision`, { token })).body
      .receipt as string;
    const auto = await submit("read-notes.ts");
    const jwksBefore = (await callServe(first.url, "GET", "/.well-known/jwks.json")).body;

    await first.kill();
    const second = await serve(env);

    for (const p of pending)
      expect((await callServe(second.url, "GET", `/v1/requests/${p.id}`, { token })).body.status).toBe("pending");
    const again = await loginServe(second.url, link(env, "bob"));
    const view = (await callServe(second.url, "GET", `/v1/requests/${decided.id}`, again)).body;
    expect(view).toMatchObject({ status: "approved", decision: { kind: "approved_once", approver: "alice" } });
    const jwks = (await callServe(second.url, "GET", "/.well-known/jwks.json")).body;
    expect(jwks).toEqual(jwksBefore);
    for (const [receipt, name] of [
      [approvedReceipt, "notify-team.ts"],
      [auto.receipt, "read-notes.ts"],
    ] as const) {
      const verified = await verifyReceipt(receipt, {
        jwks: importJwks(jwks),
        issuer: "countersign-local",
        programBytes: utf8(example(name)),
      });
      expect(verified.claims.program.entry).toBe(name);
    }
    const claims = JSON.parse(Buffer.from(auto.receipt.split(".")[1], "base64url").toString());
    expect(
      (await callServe(second.url, "POST", `/v1/receipts/${claims.jti}/redeem`, { token, body: { exp: claims.exp } }))
        .status,
    ).toBe(200);
    expect(
      (await callServe(second.url, "POST", `/v1/receipts/${claims.jti}/redeem`, { token, body: { exp: claims.exp } }))
        .status,
    ).toBe(409);
    expect((await callServe(second.url, "GET", "/v1/audit/verify", again)).body).toMatchObject({ ok: true });
    expect(
      (
        await callServe(second.url, "POST", `/v1/requests/${pending[0].id}/decision`, {
          ...again,
          body: { decision: "approved_once" },
        })
      ).status,
    ).toBe(200);
    expect(await second.stop()).toBe(0);
  }, 120_000);
});

describe("serve and SIGHUP", () => {
  it("reloads the policy on SIGHUP; one that fails to load keeps the old one, and the log and the audit say why", async () => {
    const env = isolatedEnv();
    const p = await serve(env);
    const session = await loginServe(p.url, link(env, "alice"));
    const broken = join(env.COUNTERSIGN_HOME!, "policies", "broken.toml");
    writeFileSync(broken, 'default = "sometimes"\n');
    const reloads = async (n: number) => {
      for (let i = 0; i < 100; i++) {
        const audit = String((await callServe(p.url, "GET", "/v1/audit", session)).body)
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l));
        const found = audit.filter((e) => e.type === "policy_reloaded");
        if (found.length >= n) return found;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error("no reload in the audit");
    };
    p.child.kill("SIGHUP");
    expect((await reloads(1))[0]).toMatchObject({
      details: { ok: false, error: expect.stringContaining("broken.toml") },
    });
    expect(p.stderr()).toContain("reload refused, the previous policy stays in force");
    const token = tokenOf(env);
    expect(
      (await callServe(p.url, "POST", "/v1/requests", { token, body: { program: example("read-notes.ts") } })).body
        .status,
    ).toBe("approved");
    unlinkSync(broken);
    p.child.kill("SIGHUP");
    expect((await reloads(2))[1]).toMatchObject({ actor: "authority (SIGHUP)", details: { ok: true } });
    expect(await p.stop()).toBe(0);
  }, 120_000);
});

describe("two servers on one PostgreSQL database", () => {
  it("see each other's decisions, redeem a receipt once between them, and keep one audit chain", async () => {
    const database = await newDatabase("postgres");
    const envA = isolatedEnv({ COUNTERSIGN_DATABASE: database });
    const envB = isolatedEnv({ COUNTERSIGN_DATABASE: database });
    const a = await serve(envA);
    const b = await serve(envB);
    const token = tokenOf(envA); // one store, one set of tokens: B made none of its own
    const sessionA = await loginServe(a.url, link(envA, "alice"));
    const sessionB = await loginServe(b.url, link(envB, "bob"));

    const { id } = (
      await callServe(a.url, "POST", "/v1/requests", { token, body: { program: example("notify-team.ts") } })
    ).body;
    const events = await fetch(`${b.url}/v1/events`, { headers: { cookie: sessionB.cookie } });
    const waiting = callServe(b.url, "GET", `/v1/requests/${id}/decision?wait=30`, { token });
    await new Promise((r) => setTimeout(r, 300));
    expect(
      (
        await callServe(a.url, "POST", `/v1/requests/${id}/decision`, {
          ...sessionA,
          body: { decision: "approved_once" },
        })
      ).status,
    ).toBe(200);
    expect((await waiting).body).toMatchObject({ status: "approved", decision: { kind: "approved_once" } });
    const reader = events.body!.getReader();
    let stream = "";
    while (!stream.includes(`"request_id":"${id}","status":"approved"`))
      stream += Buffer.from((await reader.read()).value!).toString();
    await reader.cancel();

    // Readers of a fresh approval racing through both servers: one receipt is signed, all get it.
    const raced = (
      await callServe(a.url, "POST", "/v1/requests", { token, body: { program: example("notify-team.ts") } })
    ).body.id as string;
    expect(
      (
        await callServe(b.url, "POST", `/v1/requests/${raced}/decision`, {
          ...sessionB,
          body: { decision: "approved_once" },
        })
      ).status,
    ).toBe(200);
    const reads = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        callServe(i % 2 === 0 ? a.url : b.url, "GET", `/v1/requests/${raced}/decision`, { token }),
      ),
    );
    expect(new Set(reads.map((r) => r.body.receipt)).size).toBe(1);
    expect(reads[0]!.body.receipt).toEqual(expect.any(String));

    const auto = (
      await callServe(a.url, "POST", "/v1/requests", { token, body: { program: example("read-notes.ts") } })
    ).body;
    const claims = JSON.parse(Buffer.from(auto.receipt.split(".")[1], "base64url").toString());
    const attempts = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        callServe(i % 2 === 0 ? a.url : b.url, "POST", `/v1/receipts/${claims.jti}/redeem`, {
          token,
          body: { exp: claims.exp },
        }),
      ),
    );
    expect(attempts.map((r) => r.status).sort()).toEqual([200, ...Array(9).fill(409)]);
    expect((await callServe(b.url, "GET", "/v1/audit/verify", sessionB)).body).toMatchObject({ ok: true });
    const audit = String((await callServe(a.url, "GET", "/v1/audit", sessionA)).body)
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(audit.map((e) => e.id)).toEqual(audit.map((_, i) => i + 1));
    expect(audit.filter((e) => e.type === "redeemed")).toHaveLength(1);
    expect(audit.filter((e) => e.type === "receipt_issued" && e.request_id === raced)).toHaveLength(1);
  }, 120_000);

  it("refuse a token revoked from the CLI at once, both of them, though they answered it from memory before", async () => {
    const database = await newDatabase("postgres");
    const envA = isolatedEnv({ COUNTERSIGN_DATABASE: database });
    const envB = isolatedEnv({ COUNTERSIGN_DATABASE: database });
    const a = await serve(envA);
    const b = await serve(envB);
    const token = (await cli(envA, "token", "add", "build-bot")).trim();
    const submit = async (url: string) =>
      (await callServe(url, "POST", "/v1/requests", { token, body: { program: example("read-notes.ts") } })).status;
    for (const url of [a.url, b.url, a.url, b.url]) expect(await submit(url)).toBe(200);
    await cli(envB, "token", "revoke", "build-bot");
    expect([await submit(a.url), await submit(b.url)]).toEqual([401, 401]);
    const together = await Promise.all(Array.from({ length: 8 }, (_, i) => submit(i % 2 === 0 ? a.url : b.url)));
    expect(together).toEqual(Array(8).fill(401));
  }, 120_000);
});
