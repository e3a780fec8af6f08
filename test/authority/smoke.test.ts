import { afterAll, describe, expect, it } from "vitest";
import { example, startTestAuthority, type TestAuthority } from "./harness.js";

describe("smoke", () => {
  let a: TestAuthority;
  afterAll(async () => a?.close());
  it("starts and answers", async () => {
    a = await startTestAuthority("sqlite");
    expect((await a.call("GET", "/healthz")).body).toEqual({ ok: true });
    const r = await a.call("POST", "/v1/requests", { body: { program: example("read-notes.ts"), source_name: "read-notes.ts" } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "approved" });
    const p = await a.call("POST", "/v1/requests", { body: { program: example("notify-team.ts") } });
    expect(p.status).toBe(202);
    const s = await a.login();
    const d = await a.call("POST", `/v1/requests/${p.body.id}/decision`, { session: s, body: { decision: "approved_once" } });
    expect(d.status).toBe(200);
    const w = await a.call("GET", `/v1/requests/${p.body.id}/decision?wait=1`);
    expect(w.body).toMatchObject({ status: "approved", receipt: expect.any(String) });
  });
});
