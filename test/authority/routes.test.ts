// The whole route table against a real authority on 127.0.0.1, once over SQLite and once over
// PostgreSQL: what each route answers, what it stores, and what it refuses.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { importJwks, verifyReceipt } from "../../src/receipt/index.js";
import { DIALECTS } from "../store/fixtures.js";
import { authorityForSuite, example, openEvents, type ApproverSession, type TestAuthority } from "./harness.js";

const utf8 = (text: string) => new TextEncoder().encode(text);

describe.each(DIALECTS)("the authority's routes over %s", (dialect) => {
  let a: TestAuthority;
  let alice: ApproverSession;
  authorityForSuite(dialect, (started, session) => ((a = started), (alice = session)));

  const submit = (name: string, extra: Record<string, unknown> = {}) =>
    a.call("POST", "/v1/requests", { body: { program: example(name), source_name: name, ...extra } });

  it("GET /healthz and /.well-known/jwks.json need nobody", async () => {
    expect(await a.call("GET", "/healthz", { token: null })).toMatchObject({ status: 200, body: { ok: true } });
    const jwks = await a.call("GET", "/.well-known/jwks.json", { token: null });
    expect(jwks.status).toBe(200);
    expect(jwks.body.keys).toEqual([expect.objectContaining({ kty: "OKP", crv: "Ed25519", alg: "EdDSA" })]);
  });

  it("POST /v1/requests: an auto-approvable program gets a receipt that verifies against the JWKS", async () => {
    const answer = await submit("read-notes.ts", { rationale: "catch up" });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      id: expect.stringMatching(/^req_/),
      status: "approved",
      decision: { kind: "auto_approved" },
      receipt: expect.any(String),
    });
    const jwks = (await a.call("GET", "/.well-known/jwks.json")).body;
    const verified = await verifyReceipt(answer.body.receipt, {
      jwks: importJwks(jwks),
      issuer: "countersign-local",
      programBytes: utf8(example("read-notes.ts")),
    });
    expect(verified.claims).toMatchObject({
      sub: answer.body.id,
      decision: "auto_approved",
      program: { entry: "read-notes.ts" },
    });
  });

  it("POST /v1/requests: auto_rejected comes back at once with every reason; ask is 202 pending with a review URL", async () => {
    const rejected = await submit("write-outside-sandbox.ts");
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({
      status: "rejected",
      decision: { kind: "auto_rejected", reason: expect.any(String) },
    });
    expect(
      rejected.body.decision.effects.some(
        (e: { verdict: string; why: string }) => e.verdict === "deny" && e.why.length > 0,
      ),
    ).toBe(true);
    expect(rejected.body.receipt).toBeUndefined();
    const pending = await submit("notify-team.ts");
    expect(pending.status).toBe(202);
    expect(pending.body).toEqual({
      id: expect.stringMatching(/^req_/),
      status: "pending",
      review_url: `${a.url}/requests/${pending.body.id}`,
    });
  });

  it("POST /v1/requests: a program the analyzer refuses is 422 with its diagnostics, and nothing is stored", async () => {
    const before = (await a.call("GET", "/v1/requests?limit=500", { session: alice })).body.requests.length;
    const answer = await a.call("POST", "/v1/requests", {
      body: { program: 'import { readFileSync } from "node:fs";\nexport default 1;\n', source_name: "bad.ts" },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.error).toMatchObject({
      class: "analysis_rejected",
      details: { diagnostics: expect.arrayContaining([expect.objectContaining({ severity: "error" })]) },
    });
    expect((await a.call("GET", "/v1/requests?limit=500", { session: alice })).body.requests.length).toBe(before);
  });

  it("every submission is a new request: the same program twice is two requests, each decided", async () => {
    const one = await submit("read-notes.ts");
    const two = await submit("read-notes.ts");
    expect(one.body.id).not.toBe(two.body.id);
    expect(one.body.receipt).not.toBe(two.body.receipt);
  });

  it("POST /v1/check: the same analysis and decision as a dry run, nothing stored; a refused program shows its diagnostics", async () => {
    const before = (await a.call("GET", "/v1/requests?limit=500", { session: alice })).body.requests.length;
    const answer = await a.call("POST", "/v1/check", {
      body: { program: example("notify-team.ts"), source_name: "notify-team.ts" },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.facts).toMatchObject({ ok: true, program: { entry: "notify-team.ts" } });
    expect(answer.body.decision).toMatchObject({ kind: "ask" });
    const refused = await a.call("POST", "/v1/check", { body: { program: "export default 1 +;" } });
    expect(refused.status).toBe(200);
    expect(refused.body.facts.ok).toBe(false);
    expect(refused.body.facts.diagnostics.length).toBeGreaterThan(0);
    expect((await a.call("GET", "/v1/requests?limit=500", { session: alice })).body.requests.length).toBe(before);
  });

  it("GET /v1/requests/:id: the submitter sees its own request without source or facts; another token sees nothing; the approver sees all", async () => {
    const { body } = await submit("notify-team.ts", { rationale: "the weekly mail" });
    const own = await a.call("GET", `/v1/requests/${body.id}`);
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({
      id: body.id,
      status: "pending",
      program: { entry: "notify-team.ts" },
      policy: { kind: "ask" },
      decision: null,
    });
    for (const hidden of ["source", "facts", "token", "rationale", "remember"])
      expect(own.body).not.toHaveProperty(hidden);
    const other = (
      await a.call("POST", "/v1/requests", {
        body: { program: example("notify-team.ts") },
        token: await newToken(a, "other-agent"),
      })
    ).body;
    expect((await a.call("GET", `/v1/requests/${other.id}`)).status).toBe(404);
    const approver = await a.call("GET", `/v1/requests/${body.id}`, { session: alice });
    expect(approver.body).toMatchObject({
      source: example("notify-team.ts"),
      token: "agent",
      rationale: "the weekly mail",
      facts: { ok: true },
    });
    expect(approver.body.remember).toEqual([
      expect.objectContaining({ op: "email.send_email", rule: expect.objectContaining({ decision: "allow" }) }),
    ]);
    expect((await a.call("GET", "/v1/requests/req_nothing", { session: alice })).status).toBe(404);
  });

  it("GET /v1/requests/:id/decision?wait=N: waits for the person, then hands the submitter a receipt", async () => {
    const { body } = await submit("notify-team.ts");
    const started = Date.now();
    const quick = await a.call("GET", `/v1/requests/${body.id}/decision?wait=1`);
    expect(quick.body).toMatchObject({ status: "pending", decision: null });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    // The longest wait there is, past the test's own timeout: only the decision can end it in time.
    const waiting = a.call("GET", `/v1/requests/${body.id}/decision?wait=60`);
    await new Promise((r) => setTimeout(r, 200));
    expect(
      (
        await a.call("POST", `/v1/requests/${body.id}/decision`, {
          session: alice,
          body: { decision: "approved_once" },
        })
      ).status,
    ).toBe(200);
    const answer = await waiting;
    expect(answer.body).toMatchObject({
      status: "approved",
      decision: { kind: "approved_once" },
      receipt: expect.any(String),
    });
    expect(answer.body.decision).not.toHaveProperty("approver");
    expect((await a.call("GET", `/v1/requests/${body.id}/decision?wait=61`)).status).toBe(400);
    expect((await a.call("GET", `/v1/requests/${body.id}/decision`, { session: alice })).body).not.toHaveProperty(
      "receipt",
    );
  });

  it("GET /v1/requests/:id/decision: every read of an approved request hands out its one receipt, and stores nothing more", async () => {
    const { body } = await submit("notify-team.ts");
    expect(
      (
        await a.call("POST", `/v1/requests/${body.id}/decision`, {
          session: alice,
          body: { decision: "approved_once" },
        })
      ).status,
    ).toBe(200);
    const reads = await Promise.all(
      Array.from({ length: 20 }, () => a.call("GET", `/v1/requests/${body.id}/decision`)),
    );
    const receipts = new Set(reads.map((r) => r.body.receipt));
    expect([...receipts]).toEqual([expect.any(String)]);
    let issued = 0;
    for await (const e of a.authority.state.store.exportAudit())
      if (e.type === "receipt_issued" && e.request_id === body.id) issued++;
    expect(issued).toBe(1);
  });

  it("GET /v1/requests: the approver's listing by status, newest first, a page at a time", async () => {
    await submit("notify-team.ts");
    await submit("notify-team.ts");
    const first = await a.call("GET", "/v1/requests?status=pending&limit=1", { session: alice });
    expect(first.status).toBe(200);
    expect(first.body.requests).toHaveLength(1);
    expect(first.body.requests[0].status).toBe("pending");
    const second = await a.call("GET", `/v1/requests?status=pending&limit=1&cursor=${first.body.cursor}`, {
      session: alice,
    });
    expect(second.body.requests[0].seq).toBeLessThan(first.body.requests[0].seq);
    expect((await a.call("GET", "/v1/requests?status=maybe", { session: alice })).status).toBe(400);
    expect((await a.call("GET", "/v1/requests?limit=0", { session: alice })).status).toBe(400);
    expect((await a.call("GET", "/v1/requests?colour=red", { session: alice })).status).toBe(400);
  });

  it("POST /v1/requests/:id/decision: reasons and feedback required, 404 unknown, idempotent, 409 when decided otherwise, the approver recorded", async () => {
    const { body } = await submit("notify-team.ts");
    const decide = (decision: Record<string, unknown>) =>
      a.call("POST", `/v1/requests/${body.id}/decision`, { session: alice, body: decision });
    expect((await decide({ decision: "rejected" })).body.error).toMatchObject({
      class: "usage_error",
      message: expect.stringContaining("a rejection needs a reason"),
    });
    expect((await decide({ decision: "request_more", feedback: "  " })).status).toBe(400);
    expect((await decide({ decision: "approve" })).status).toBe(400);
    expect(
      (
        await a.call("POST", "/v1/requests/req_unknown/decision", {
          session: alice,
          body: { decision: "approved_once" },
        })
      ).status,
    ).toBe(404);
    const first = await decide({ decision: "rejected", reason: "not this week" });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      status: "rejected",
      changed: true,
      decision: { kind: "rejected", approver: "alice", reason: "not this week" },
    });
    const again = await decide({ decision: "rejected", reason: "not this week" });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ changed: false, decision: first.body.decision });
    const other = await decide({ decision: "approved_once" });
    expect(other.status).toBe(409);
    const polled = await a.call("GET", `/v1/requests/${body.id}/decision`);
    expect(polled.body).toMatchObject({ status: "rejected", decision: { kind: "rejected", reason: "not this week" } });
    expect(polled.body).not.toHaveProperty("receipt");
    const auto = await submit("read-notes.ts");
    expect(
      (
        await a.call("POST", `/v1/requests/${auto.body.id}/decision`, {
          session: alice,
          body: { decision: "rejected", reason: "no" },
        })
      ).status,
    ).toBe(409);
  });

  it("approved_remember saves the narrowest rule: the same program then passes on its own, until the rule is forgotten", async () => {
    const program = example("notify-team.ts").replace("Weekly report ready", `Weekly report ready (${dialect})`);
    const first = await a.call("POST", "/v1/requests", { body: { program } });
    expect(first.status).toBe(202);
    const decided = await a.call("POST", `/v1/requests/${first.body.id}/decision`, {
      session: alice,
      body: { decision: "approved_remember" },
    });
    expect(decided.body).toMatchObject({
      status: "approved",
      decision: { kind: "approved_remember", approver: "alice" },
    });
    const again = await a.call("POST", "/v1/requests", { body: { program } });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      status: "approved",
      decision: { kind: "auto_approved" },
      receipt: expect.any(String),
    });
    const rules = await a.authority.state.store.listRememberedRules();
    const rule = rules.find((r) => r.request_id === first.body.id)!;
    await a.authority.state.store.forgetRule(rule.id, "alice");
    expect((await a.call("POST", "/v1/requests", { body: { program } })).status).toBe(202);
  });

  it("POST /v1/requests/:id/withdraw: the submitter's own pending request, once", async () => {
    const { body } = await submit("notify-team.ts");
    expect(
      (await a.call("POST", `/v1/requests/${body.id}/withdraw`, { token: await newToken(a, "third-agent"), body: {} }))
        .status,
    ).toBe(404);
    const withdrawn = await a.call("POST", `/v1/requests/${body.id}/withdraw`, { body: {} });
    expect(withdrawn).toMatchObject({ status: 200, body: { status: "withdrawn" } });
    expect((await a.call("POST", `/v1/requests/${body.id}/withdraw`, { body: {} })).status).toBe(409);
    expect(
      (
        await a.call("POST", `/v1/requests/${body.id}/decision`, {
          session: alice,
          body: { decision: "approved_once" },
        })
      ).status,
    ).toBe(409);
  });

  it("POST /v1/receipts/:jti/redeem: exactly once, the second call is 409; an unknown receipt is 404", async () => {
    const { body } = await submit("read-notes.ts");
    const claims = JSON.parse(Buffer.from(body.receipt.split(".")[1], "base64url").toString());
    const redeem = () => a.call("POST", `/v1/receipts/${claims.jti}/redeem`, { body: { exp: claims.exp } });
    expect(await redeem()).toMatchObject({ status: 200, body: { jti: claims.jti, redeemed: true } });
    expect(await redeem()).toMatchObject({
      status: 409,
      body: { error: { class: "receipt_invalid", details: { outcome: "already_redeemed" } } },
    });
    const other = (await submit("read-notes.ts")).body;
    const otherClaims = JSON.parse(Buffer.from(other.receipt.split(".")[1], "base64url").toString());
    const stranger = await newToken(a, "receipt-thief");
    expect(
      (
        await a.call("POST", `/v1/receipts/${otherClaims.jti}/redeem`, {
          token: stranger,
          body: { exp: otherClaims.exp },
        })
      ).status,
    ).toBe(404); // another agent's receipt
    expect(
      (await a.call("POST", `/v1/receipts/${otherClaims.jti}/redeem`, { body: { exp: otherClaims.exp } })).status,
    ).toBe(200);
    expect(
      (await a.call("POST", `/v1/receipts/AAAAAAAAAAAAAAAAAAAAAA/redeem`, { body: { exp: claims.exp } })).status,
    ).toBe(404);
    // one request is one run: no further receipt for it
    expect((await a.call("GET", `/v1/requests/${body.id}/decision`)).status).toBe(409);
  });

  it("GET /v1/events: pending and resolved events as they happen, resumed after Last-Event-ID", async () => {
    const events = openEvents(a, alice);
    await events.opened;
    const { body } = await submit("notify-team.ts");
    await a.call("POST", `/v1/requests/${body.id}/decision`, {
      session: alice,
      body: { decision: "rejected", reason: "no" },
    });
    const seen = await events.until((list) => list.filter((e) => e.data.request_id === body.id).length >= 2);
    events.close();
    const mine = seen.filter((e) => e.data.request_id === body.id);
    expect(mine.map((e) => [e.event, e.data.status])).toEqual([
      ["pending", "pending"],
      ["resolved", "rejected"],
    ]);
    const resumed = openEvents(a, alice, mine[0]!.id);
    const replay = await resumed.until((list) => list.some((e) => e.data.request_id === body.id));
    resumed.close();
    expect(replay.filter((e) => e.data.request_id === body.id).map((e) => e.event)).toEqual(["resolved"]);
  });

  it("GET /v1/audit and /v1/audit/verify: the whole chain, intact", async () => {
    const exported = await a.call("GET", "/v1/audit", { session: alice });
    expect(exported.status).toBe(200);
    expect(exported.headers.get("content-type")).toContain("application/x-ndjson");
    const lines = String(exported.body)
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ id: 1 });
    expect(lines.map((l) => l.type)).toEqual(
      expect.arrayContaining([
        "submitted",
        "analyzed",
        "decided",
        "receipt_issued",
        "redeemed",
        "token_added",
        "approver_login",
      ]),
    );
    const verified = await a.call("GET", "/v1/audit/verify", { session: alice });
    expect(verified.body).toMatchObject({ ok: true, entries: expect.any(Number) });
  });

  it("POST /v1/reload: a policy that fails to load keeps the old one, says why, and the audit records it", async () => {
    const policyFile = join(a.dataDir, "policies", "broken.toml");
    writeFileSync(policyFile, 'default = "sometimes"\n');
    try {
      const refused = await a.call("POST", "/v1/reload", { session: alice, body: {} });
      expect(refused.status).toBe(422);
      expect(refused.body).toMatchObject({ ok: false, error: expect.stringContaining("broken.toml") });
      expect((await submit("read-notes.ts")).body.status).toBe("approved"); // the old policy still decides
    } finally {
      writeFileSync(policyFile, "# nothing here yet\n");
    }
    const reloaded = await a.call("POST", "/v1/reload", { session: alice, body: {} });
    expect(reloaded).toMatchObject({
      status: 200,
      body: { ok: true, policy_sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    const audit = String((await a.call("GET", "/v1/audit", { session: alice })).body)
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(audit.filter((e) => e.type === "policy_reloaded").map((e) => e.details.ok)).toEqual([false, true]);
  });

  it("unknown routes answer in the envelope", async () => {
    const answer = await a.call("GET", "/v2/nothing");
    expect(answer).toMatchObject({
      status: 404,
      body: { error: { class: "usage_error", boundary: "authority", retriable: false } },
    });
  });
});

async function newToken(a: TestAuthority, name: string): Promise<string> {
  return (await a.authority.state.store.addToken(name)).token;
}
