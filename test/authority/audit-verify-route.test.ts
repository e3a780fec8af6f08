// GET /v1/audit/verify holds the chain to its signed checkpoints, as `audit verify` does: the ones
// in the database and the one in the data directory's file. A chain that verifies on its own but
// not against a signed head, or a checkpoint not signed by the authority, is reported, not passed.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generateKey, signCheckpoint } from "../../src/receipt/index.js";
import { CHECKPOINT_FILE, fileKeyStore } from "../../src/store/index.js";
import { DIALECTS } from "../store/fixtures.js";
import { authorityForSuite, example, warmAnalysis, type ApproverSession, type TestAuthority } from "./harness.js";

describe.each(DIALECTS)("GET /v1/audit/verify over %s", (dialect) => {
  let a: TestAuthority;
  let alice: ApproverSession;
  authorityForSuite(dialect, (started, session) => ((a = started), (alice = session)));

  const verify = async () => (await a.call("GET", "/v1/audit/verify", { session: alice })).body;
  const lastEntry = async (): Promise<{ id: number; hash: string }> => {
    const lines = String((await a.call("GET", "/v1/audit", { session: alice })).body)
      .trim()
      .split("\n");
    return JSON.parse(lines.at(-1)!);
  };
  const writeCheckpointFile = (jws: string) => writeFileSync(join(a.dataDir, CHECKPOINT_FILE), jws);

  it("reports the checkpoints it held: every one in the database, and the file's", async () => {
    await warmAnalysis(a);
    const submitted = await a.call("POST", "/v1/requests", { body: { program: example("notify-team.ts") } });
    expect(submitted.status).toBe(202);
    const decided = await a.call("POST", `/v1/requests/${submitted.body.id}/decision`, {
      session: alice,
      body: { decision: "rejected", reason: "not now" },
    });
    expect(decided.status).toBe(200);
    const verified = await verify();
    expect(verified).toMatchObject({
      ok: true,
      entries: expect.any(Number),
      checkpoints: { stored: expect.any(Number), newest_stored: expect.any(Number), file: expect.any(Number) },
    });
    // the decision's own transaction signed its head (the sweep may have signed more since)
    expect(verified.checkpoints.stored).toBeGreaterThanOrEqual(1);
    expect(verified.checkpoints.file).toBe(verified.checkpoints.newest_stored);
  });

  it("a checkpoint file signed with a key not the authority's fails, as forged", async () => {
    const last = await lastEntry();
    writeCheckpointFile(
      signCheckpoint({ size: last.id, head: last.hash, at: Date.now() }, await generateKey(new Date())),
    );
    expect(await verify()).toMatchObject({ ok: false, reason: "checkpoint_forged" });
  });

  it("a head signed by the authority that the chain does not hold fails at that entry", async () => {
    const last = await lastEntry();
    const key = (await fileKeyStore(a.dataDir).keyring(new Date())).active;
    writeCheckpointFile(signCheckpoint({ size: last.id, head: "f".repeat(64), at: Date.now() }, key));
    expect(await verify()).toMatchObject({ ok: false, reason: "checkpoint_mismatch", broken_id: last.id });
  });
});
