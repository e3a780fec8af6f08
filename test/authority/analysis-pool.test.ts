// The analysis pool: real worker threads with real analyzers. A thread that overruns is replaced,
// the event loop stays free while programs are analyzed, and a reload gives the threads new manifests.
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { AnalysisPool } from "../../src/authority/analysis-pool.js";
import { loadManifests } from "../../src/config/index.js";
import { packageRoot } from "../../src/model/paths.js";
import { shippedManifests } from "../policy/helpers.js";
import { example, startTestAuthority, type TestAuthority } from "./harness.js";

const pools: AnalysisPool[] = [];
const authorities: TestAuthority[] = [];
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
  await Promise.all(authorities.map((a) => a.close()));
});

async function pool(timeoutMs: number, size = 1): Promise<AnalysisPool> {
  const p = AnalysisPool.create({ manifests: shippedManifests(), size, timeoutMs });
  pools.push(p);
  await p.warm();
  return p;
}

const readText = `import { program } from "countersign";
import { readText } from "trusted/fs";

export default program({
  rationale: "Read one note.",
  async main() {
    await readText({ path: "/home/user/Sandbox/notes/a.txt" });
  },
});
`;

describe("the analysis pool", () => {
  it("analyzes in worker threads: the facts a warm analyzer gives", async () => {
    const p = await pool(30_000);
    const facts = await p.analyze({ source: example("notify-team.ts"), entry: "notify-team.ts" });
    expect(facts).toMatchObject({
      ok: true,
      program: { entry: "notify-team.ts" },
      effects: [expect.objectContaining({ op: "email.send_email" })],
    });
  });

  it("queues a program given before its threads start, and analyzes it once they are warm", async () => {
    const p = AnalysisPool.create({ manifests: shippedManifests(), size: 1, timeoutMs: 30_000 });
    pools.push(p);
    const early = p.analyze({ source: example("notify-team.ts"), entry: "early.ts" });
    await p.warm();
    expect(await early).toMatchObject({ ok: true, program: { entry: "early.ts" } });
  });

  it("a program that overruns the time limit gets analysis_budget_exceeded, and its thread is replaced", async () => {
    const p = await pool(1);
    for (let i = 0; i < 3; i++) {
      const facts = await p.analyze({ source: example("notify-team.ts"), entry: "slow.ts" });
      expect(facts).toMatchObject({
        ok: false,
        effects: [],
        diagnostics: [expect.objectContaining({ severity: "error", code: "analysis_budget_exceeded" })],
      });
      expect(facts.program.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it("never runs the checker on the event loop: it stays idle while programs are analyzed", async () => {
    const p = await pool(30_000, 2);
    const programs = Array.from({ length: 24 }, (_, i) => ({
      source: `${example("team-digest.ts")}// copy ${i}\n`,
      entry: `p${i}.ts`,
    }));
    const before = performance.eventLoopUtilization();
    const all = await Promise.all(programs.map((program) => p.analyze(program)));
    const used = performance.eventLoopUtilization(before);
    expect(all.every((f) => f.ok)).toBe(true);
    expect(used.utilization).toBeLessThan(0.5); // the analyses ran elsewhere: analyzing here would keep this loop busy all along
  });

  it("setManifests: later programs are analyzed against the new manifests", async () => {
    const p = await pool(30_000);
    expect((await p.analyze({ source: readText, entry: "a.ts" })).ok).toBe(false); // no readText yet
    const dir = manifestsWithReadText();
    await p.setManifests(loadManifests(dir));
    const facts = await p.analyze({ source: readText, entry: "a.ts" });
    expect(facts).toMatchObject({ ok: true, effects: [expect.objectContaining({ op: "fs.read_text" })] });
  });
});

describe("start-up", () => {
  it("answers a submission made before the analysis threads are warm, once they are, as it would after", async () => {
    const a = await startTestAuthority("sqlite");
    authorities.push(a);
    const warmAtFirstCall = await Promise.race([a.authority.warmed.then(() => true), Promise.resolve(false)]);
    const health = a.call("GET", "/healthz", { token: null });
    const approved = a.call("POST", "/v1/requests", {
      body: { program: `${example("read-notes.ts")}// early\n`, source_name: "read-notes.ts" },
    });
    const pending = a.call("POST", "/v1/requests", {
      body: { program: example("notify-team.ts"), source_name: "notify-team.ts" },
    });
    expect(warmAtFirstCall).toBe(false); // the listener came up before the threads
    expect(await health).toMatchObject({ status: 200, body: { ok: true } });
    expect(await approved).toMatchObject({
      status: 200,
      body: { status: "approved", decision: { kind: "auto_approved" }, receipt: expect.any(String) },
    });
    expect(await pending).toMatchObject({ status: 202, body: { status: "pending" } });
    await a.authority.warmed;
  });
});

describe("reload", () => {
  it("POST /v1/reload gives the analysis threads the new manifests", async () => {
    const dir = copyOfManifests();
    const a = await startTestAuthority("sqlite", { manifests: dir });
    authorities.push(a);
    const alice = await a.login();
    const check = () => a.call("POST", "/v1/check", { body: { program: readText } });
    expect((await check()).body.facts.ok).toBe(false);
    writeFileSync(join(dir, "fs", "read_text.toml"), readTextManifest());
    expect((await a.call("POST", "/v1/reload", { session: alice, body: {} })).body).toMatchObject({ ok: true });
    const after = (await check()).body;
    expect(after.facts).toMatchObject({ ok: true, effects: [expect.objectContaining({ op: "fs.read_text" })] });
    expect(after.decision.effects).toEqual([expect.objectContaining({ op: "fs.read_text" })]);
  });
});

function readTextManifest(): string {
  return readFileSync(join(packageRoot, "manifests", "fs", "read_file.toml"), "utf8").replace(
    'name = "read_file"',
    'name = "read_text"',
  );
}

/** The shipped manifests in a folder of their own, each connector's wasm named by its absolute path. */
function copyOfManifests(): string {
  const dir = join(mkdtempSync(join(tmpdir(), "countersign-manifests-")), "manifests");
  cpSync(join(packageRoot, "manifests"), dir, { recursive: true });
  for (const connector of ["email", "fs", "http"]) {
    const file = join(dir, connector, "connector.toml");
    writeFileSync(
      file,
      readFileSync(file, "utf8").replace(
        /^wasm = "\.\.\/\.\.\/(.*)"$/m,
        (_, rel: string) => `wasm = "${join(packageRoot, rel)}"`,
      ),
    );
  }
  return dir;
}

function manifestsWithReadText(): string {
  const dir = copyOfManifests();
  writeFileSync(join(dir, "fs", "read_text.toml"), readTextManifest());
  return dir;
}
