// `countersign audit checkpoint` and `audit verify` against the signed heads, in and outside the database.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { decideRequest, type AppContext } from "../../src/app/index.js";
import type { Io } from "../../src/cli/command.js";
import { main } from "../../src/cli/main.js";
import { packageRoot } from "../../src/model/paths.js";
import { MemoryRedemptionStore } from "../../src/receipt/index.js";
import { CHECKPOINT_FILE, fileKeyStore } from "../../src/store/index.js";
import { shippedManifests } from "../policy/helpers.js";
import { isolatedEnv } from "../support/isolated-env.js";
import { opener, rawSql, submission } from "../store/fixtures.js";

const stores = opener();
afterAll(() => stores.closeAll());

/** A data directory and SQLite database with two decided requests, each decision signed. */
async function decided(): Promise<{ dataDir: string; database: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), "countersign-audit-cli-"));
  const database = join(dataDir, "countersign.db");
  const store = await stores.open(database);
  const { name } = await store.addToken("agent");
  const manifests = shippedManifests();
  const ctx = {
    dataDir,
    now: () => new Date(),
    manifests: () => manifests,
    keys: fileKeyStore(dataDir),
    redemptions: new MemoryRedemptionStore(),
    store: async () => store,
  } as unknown as AppContext;
  for (let i = 0; i < 2; i++) {
    const submitted = await store.submit(submission(name, "ask"));
    if (!submitted.ok) throw new Error("not submitted");
    await decideRequest(ctx, submitted.request.id, { kind: "rejected", approver: "alice", reason: "no" });
  }
  return { dataDir, database };
}

async function run(dataDir: string, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    readStdin: async () => "",
    env: isolatedEnv({ COUNTERSIGN_HOME: dataDir }),
    cwd: packageRoot,
  };
  const code = await main(argv, io);
  return { code, out: out.join(""), err: err.join("") };
}

describe("countersign audit checkpoint | verify", () => {
  it("exports the newest signed head, and verify holds the chain to it after the database lost its last entries", async () => {
    const { dataDir, database } = await decided();
    const exported = await run(dataDir, "audit", "checkpoint", "--database", database);
    expect(exported.code).toBe(0);
    expect(exported.out).toBe(readFileSync(join(dataDir, CHECKPOINT_FILE), "utf8"));
    const kept = join(mkdtempSync(join(tmpdir(), "countersign-kept-")), "head.jws");
    writeFileSync(kept, exported.out);

    const intact = await run(dataDir, "audit", "verify", "--database", database, "--checkpoint", kept);
    expect(intact.code).toBe(0);
    expect(intact.out).toMatch(
      new RegExp(
        `^audit chain intact: (\\d+) entries, head [0-9a-f]{64}; it holds 2 signed checkpoints in the database \\(newest at entry \\1\\) and the one in ${kept} \\(entry \\1\\)\\n$`,
      ),
    );

    const size = Number(/intact: (\d+) entries/.exec(intact.out)![1]);
    await rawSql(
      database,
      `DELETE FROM audit WHERE id > ${size - 2}; DELETE FROM audit_checkpoints;
      UPDATE audit_head SET last_id = ${size - 2}, last_hash = (SELECT hash FROM audit WHERE id = ${size - 2}) WHERE one = 1;`,
    );
    const cut = await run(dataDir, "audit", "verify", "--database", database, "--checkpoint", kept);
    expect(cut.code).toBe(1);
    expect(cut.out).toBe(
      `audit chain broken at entry ${size - 1} (truncated): the chain ends at entry ${size - 2} but the signed checkpoint (in ${kept}, signed at ${
        /signed at ([^)]+)\)/.exec(cut.out)![1]
      }) holds ${size} entries: entries ${size - 1} to ${size} were deleted; ${size - 2} entries before it verify\n`,
    );
    const json = JSON.parse((await run(dataDir, "audit", "verify", "--database", database, "--json")).out);
    expect(json).toMatchObject({
      verification: { ok: false, reason: "truncated" },
      stored: 0,
      outside: { from: join(dataDir, CHECKPOINT_FILE), size },
    });
  });

  it("a forged checkpoint file fails verify as forged; --checkpoint is verify's alone", async () => {
    const { dataDir, database } = await decided();
    const jws = readFileSync(join(dataDir, CHECKPOINT_FILE), "utf8").trim();
    const forged = join(dataDir, "forged.jws");
    writeFileSync(forged, jws.slice(0, -2) + (jws.endsWith("AA") ? "BA" : "AA"));
    const result = await run(dataDir, "audit", "verify", "--database", database, "--checkpoint", forged);
    expect(result.code).toBe(1);
    expect(result.out).toMatch(
      new RegExp(
        `^audit checkpoint forged: the checkpoint in ${forged} is forged: audit checkpoint refused \\((bad_signature|malformed)\\)`,
      ),
    );
    expect(
      (await run(dataDir, "audit", "export", "--jsonl", "--checkpoint", forged, "--database", database)).code,
    ).toBe(2);
  });

  it("a chain never signed has no checkpoint to export", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "countersign-audit-cli-"));
    const result = await run(dataDir, "audit", "checkpoint", "--database", join(dataDir, "empty.db"));
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/no checkpoint yet/);
  });
});
