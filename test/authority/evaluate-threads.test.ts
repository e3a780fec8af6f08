// Submissions are decided and signed on the analysis threads: what the event loop puts in force
// (a reloaded policy, a rotated key) reaches every thread, a refused reload changes nothing on
// any of them, and a thread that dies answers its submissions with an error rather than never.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { decodeProtectedHeader } from "jose";
import { afterAll, describe, expect, it } from "vitest";
import { AnalysisWorker, WorkerFailed } from "../../src/authority/analysis-worker.js";
import { loadPolicy } from "../../src/config/index.js";
import { packageRoot } from "../../src/model/paths.js";
import { shippedManifests } from "../policy/helpers.js";
import { example, HOME, startTestAuthority, type TestAuthority } from "./harness.js";

const authorities: TestAuthority[] = [];
afterAll(async () => {
  await Promise.all(authorities.map((a) => a.close()));
});

/** Submit the same program `n` times at once (both threads take some) and answer the statuses. */
async function submitMany(a: TestAuthority, n: number): Promise<{ status: number; body: any }[]> {
  return Promise.all(Array.from({ length: n }, () => a.call("POST", "/v1/requests", { body: { program: example("read-notes.ts") } })));
}

describe("evaluation on the analysis threads", () => {
  it("a reloaded policy decides on every thread; a policy that fails to load keeps the old one on all of them", async () => {
    const a = await startTestAuthority("sqlite", { poolSize: 2 });
    authorities.push(a);
    const alice = await a.login();
    expect((await submitMany(a, 8)).map((r) => r.body.status)).toEqual(Array(8).fill("approved"));

    const file = join(a.dataDir, "policies", "default.toml");
    const shipped = readFileSync(file, "utf8");
    writeFileSync(file, shipped.replace('id = "fs.read"\ndecision = "allow"', 'id = "fs.read"\ndecision = "ask"'));
    expect((await a.call("POST", "/v1/reload", { session: alice, body: {} })).body).toMatchObject({ ok: true });
    const asked = await submitMany(a, 8);
    expect(asked.map((r) => [r.status, r.body.status])).toEqual(Array(8).fill([202, "pending"]));

    writeFileSync(join(a.dataDir, "policies", "broken.toml"), 'default = "sometimes"\n');
    expect((await a.call("POST", "/v1/reload", { session: alice, body: {} })).body).toMatchObject({ ok: false });
    expect((await submitMany(a, 8)).map((r) => r.body.status)).toEqual(Array(8).fill("pending"));
  });

  it("receipts are signed with the key in force: a rotation reaches every thread", async () => {
    const a = await startTestAuthority("sqlite", { poolSize: 2 });
    authorities.push(a);
    const keys = a.authority.state.ctx.keys;
    const before = (await keys.keyring(new Date())).active.kid;
    const kids = async () => (await submitMany(a, 8)).map((r) => decodeProtectedHeader(r.body.receipt as string).kid);
    expect(await kids()).toEqual(Array(8).fill(before));
    const after = (await keys.rotate(new Date())).active.kid;
    expect(after).not.toBe(before);
    expect(await kids()).toEqual(Array(8).fill(after));
  });
});

describe("AnalysisWorker", () => {
  it("a thread stopped while it holds several submissions fails each of them", async () => {
    const manifests = shippedManifests();
    const policy = loadPolicy(join(packageRoot, "policies"), { manifests, home: HOME });
    const worker = new AnalysisWorker(manifests, undefined);
    await worker.ready;
    const program = { source: example("read-notes.ts"), entry: "read-notes.ts" };
    const first = await worker.evaluate(program, "k", undefined, policy, undefined, 30_000);
    expect(first.decision.kind).toBe("auto_approved");
    const held = Array.from({ length: 3 }, () => worker.evaluate(program, "k", undefined, policy, undefined, 30_000).then(() => "answered", (err: unknown) => err));
    await worker.terminate();
    for (const outcome of await Promise.all(held)) expect(outcome === "answered" || outcome instanceof WorkerFailed).toBe(true);
    await expect(worker.evaluate(program, "k", undefined, policy, undefined, 30_000)).rejects.toBeInstanceOf(WorkerFailed);
  });
});
