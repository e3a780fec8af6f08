// Fail closed: a store or audit write that fails is a 503 store_error with no receipt, never a
// 200 that hides it; requests nobody decides expire; and a receipt the authority hands out is
// one `countersign receipt verify` accepts.
import { describe, expect, it } from "vitest";
import type { Io } from "../../src/cli/command.js";
import { main } from "../../src/cli/main.js";
import { packageRoot } from "../../src/model/paths.js";
import { DIALECTS, rawSql } from "../store/fixtures.js";
import { isolatedEnv } from "../support/isolated-env.js";
import { authorityForSuite, example, type ApproverSession, type TestAuthority } from "./harness.js";

describe.each(DIALECTS)("failing closed over %s", (dialect) => {
  let a: TestAuthority;
  let alice: ApproverSession;
  authorityForSuite(dialect, (started, session) => ((a = started), (alice = session)), { expirySweepMs: 100 });

  it("when the audit log cannot be written, a submission is 503 store_error and no receipt leaves", async () => {
    await rawSql(a.database, "ALTER TABLE audit RENAME TO audit_away");
    try {
      const answer = await a.call("POST", "/v1/requests", { body: { program: example("read-notes.ts") } });
      expect(answer.status).toBe(503);
      expect(answer.body.error).toMatchObject({ class: "store_error", retriable: true });
      expect(JSON.stringify(answer.body)).not.toContain("receipt");
    } finally {
      await rawSql(a.database, "ALTER TABLE audit_away RENAME TO audit");
    }
    const again = await a.call("POST", "/v1/requests", { body: { program: example("read-notes.ts") } });
    expect(again).toMatchObject({ status: 200, body: { status: "approved", receipt: expect.any(String) } });
    expect((await a.call("GET", "/v1/audit/verify", { session: alice })).body).toMatchObject({ ok: true });
  });

  it("when a decision cannot be recorded, the approver gets 503 and the request stays pending", async () => {
    const { id } = (await a.call("POST", "/v1/requests", { body: { program: example("notify-team.ts") } })).body;
    await rawSql(a.database, "ALTER TABLE events RENAME TO events_away");
    try {
      const answer = await a.call("POST", `/v1/requests/${id}/decision`, {
        session: alice,
        body: { decision: "approved_once" },
      });
      expect(answer.status).toBe(503);
      expect(answer.body.error.class).toBe("store_error");
    } finally {
      await rawSql(a.database, "ALTER TABLE events_away RENAME TO events");
    }
    expect((await a.call("GET", `/v1/requests/${id}/decision`)).body).toMatchObject({ status: "pending" });
    expect(JSON.stringify((await a.call("GET", `/v1/requests/${id}/decision`)).body)).not.toContain("receipt");
  });

  it("a request nobody decides before its deadline expires, and can no longer be approved", async () => {
    const { id } = (
      await a.call("POST", "/v1/requests", { body: { program: example("notify-team.ts"), timeout_s: 1 } })
    ).body;
    const answer = await a.call("GET", `/v1/requests/${id}/decision?wait=10`);
    expect(answer.body).toMatchObject({ status: "expired" });
    expect(
      (await a.call("POST", `/v1/requests/${id}/decision`, { session: alice, body: { decision: "approved_once" } }))
        .status,
    ).toBe(409);
  });

  it("a receipt from POST /v1/requests is one `countersign receipt verify` accepts", async () => {
    const { receipt } = (
      await a.call("POST", "/v1/requests", {
        body: { program: example("read-notes.ts"), source_name: "read-notes.ts" },
      })
    ).body;
    let out = "";
    const io: Io = {
      stdout: (t) => void (out += t),
      stderr: () => undefined,
      readStdin: async () => receipt,
      env: { ...isolatedEnv(), COUNTERSIGN_HOME: a.dataDir },
      cwd: packageRoot,
    };
    expect(await main(["receipt", "verify", "-", "--program", "examples/read-notes.ts"], io)).toBe(0);
    expect(out).toContain("receipt valid: signed by countersign-local");
    expect(out).toContain("decision  auto_approved");
  });
});
