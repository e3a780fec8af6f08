// The store's behaviour, the same suite against SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuditEntry } from "../../src/model/audit.js";
import { CountersignError } from "../../src/model/errors.js";
import type { StoreEvent } from "../../src/model/request.js";
import { newRequestId, type Store } from "../../src/store/index.js";
import { DIALECTS, manualClock, newDatabase, newJti, opener, submission } from "./fixtures.js";

async function auditOf(store: Store, requestId?: string): Promise<AuditEntry[]> {
  const all: AuditEntry[] = [];
  for await (const e of store.exportAudit()) all.push(e as AuditEntry);
  return requestId === undefined ? all : all.filter((e) => e.request_id === requestId);
}

async function expectUsageError(p: Promise<unknown>, message: RegExp): Promise<void> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(CountersignError);
  expect((err as CountersignError).class).toBe("usage_error");
  expect((err as CountersignError).message).toMatch(message);
}

describe.each(DIALECTS)("store on %s", (dialect) => {
  const clock = manualClock();
  const stores = opener(clock.now);
  let store: Store;
  let token: string;

  beforeAll(async () => {
    store = await stores.open(await newDatabase(dialect));
    token = (await store.addToken("agent-1")).name;
  });
  afterAll(() => stores.closeAll());

  it("records a request the policy asks about as pending, with its audit entries and a pending event", async () => {
    const input = submission(token);
    const result = await store.submit(input);
    if (!result.ok) throw new Error("refused");
    const { request } = result;
    expect(request).toMatchObject({ status: "pending", token, source: input.source, decision: null });
    expect(request.id).toMatch(/^req_[A-Za-z0-9_-]{22}$/);
    expect(request.deadline_at - request.created_at).toBe(15 * 60 * 1000);
    expect(await store.get(request.id)).toEqual(request);
    expect((await auditOf(store, request.id)).map((e) => [e.type, e.actor])).toEqual([
      ["submitted", token],
      ["analyzed", "authority"],
    ]);
    const events = await store.eventsSince(0);
    expect(events.at(-1)).toMatchObject({ type: "pending", request_id: request.id, status: "pending" });
  });

  it("records auto decisions as decided by the policy", async () => {
    for (const [kind, status] of [
      ["auto_approved", "approved"],
      ["auto_rejected", "rejected"],
    ] as const) {
      const result = await store.submit(submission(token, kind));
      if (!result.ok) throw new Error("refused");
      expect(result.request.status).toBe(status);
      expect(result.request.decision).toMatchObject({ kind, approver: null, reason: `policy said ${kind}` });
      expect(await store.get(result.request.id)).toEqual(result.request);
      const audit = await auditOf(store, result.request.id);
      expect(audit.map((e) => e.type)).toEqual(["submitted", "analyzed", "decided"]);
      expect(audit[2]).toMatchObject({ actor: "policy", details: { kind } });
    }
  });

  it("refuses a submission whose facts are not of its source, an approved refused program, a bad deadline", async () => {
    const input = submission(token);
    await expectUsageError(store.submit({ ...input, source: `${input.source} ` }), /sha256 differs/);
    expect((await store.submit(input)).ok).toBe(true); // the same facts with their own source, then with another again
    await expectUsageError(store.submit({ ...input, source: `${input.source.slice(0, -1)}!` }), /sha256 differs/);
    const refused = submission(token, "auto_approved");
    await expectUsageError(
      store.submit({ ...refused, facts: { ...refused.facts, ok: false } }),
      /cannot be auto_approved/,
    );
    await expectUsageError(store.submit({ ...input, deadline_s: 24 * 3600 + 1 }), /deadline_s/);
    await expectUsageError(store.submit({ ...input, deadline_s: 0 }), /deadline_s/);
  });

  it("refuses submissions from unknown and revoked tokens at once", async () => {
    expect(await store.submit(submission("nobody"))).toEqual({ ok: false, reason: "token_inactive" });
    const { name, token: secret } = await store.addToken("short-lived");
    expect(await store.authenticate(secret)).toBe(name);
    expect((await store.submit(submission(name))).ok).toBe(true);
    expect(await store.revokeToken(name)).toBe(true);
    expect(await store.revokeToken(name)).toBe(false);
    expect(await store.authenticate(secret)).toBeNull();
    expect(await store.submit(submission(name))).toEqual({ ok: false, reason: "token_inactive" });
  });

  it("keeps tokens hashed, lists them without secrets, refuses a second active token of one name", async () => {
    const { token: secret } = await store.addToken("lister");
    expect(secret).toMatch(/^cs_[A-Za-z0-9_-]{43}$/);
    await expectUsageError(store.addToken("lister"), /exists; revoke it first/);
    await expectUsageError(store.addToken("no spaces"), /token name/);
    const listed = await store.listTokens();
    expect(listed.find((t) => t.name === "lister")).toEqual({
      name: "lister",
      created_at: clock.now(),
      revoked_at: null,
    });
    expect(JSON.stringify(listed)).not.toContain(secret.slice(3));
    const audit = await auditOf(store);
    expect(JSON.stringify(audit)).not.toContain(secret.slice(3));
    for (const wrong of [secret.slice(0, -1), `${secret}x`, "", "cs_", secret.toUpperCase()])
      expect(await store.authenticate(wrong)).toBeNull();
    await store.revokeToken("lister");
    const again = await store.addToken("lister");
    expect(again.token).not.toBe(secret);
    expect(await store.authenticate(again.token)).toBe("lister");
    expect(await store.authenticate(secret)).toBeNull();
  });

  it("records a person's decision exactly once: the same again is idempotent, a different one a conflict", async () => {
    const r = await store.submit(submission(token));
    if (!r.ok) throw new Error("refused");
    const first = await store.decide(r.request.id, { kind: "rejected", approver: "alice", reason: "not today" });
    expect(first).toMatchObject({
      ok: true,
      changed: true,
      request: { status: "rejected", decision: { kind: "rejected", approver: "alice", reason: "not today" } },
    });
    const same = await store.decide(r.request.id, { kind: "rejected", approver: "bob", reason: "other words" });
    expect(same).toMatchObject({
      ok: true,
      changed: false,
      request: { decision: { approver: "alice", reason: "not today" } },
    });
    const other = await store.decide(r.request.id, { kind: "approved_once", approver: "bob" });
    expect(other).toMatchObject({ ok: false, reason: "conflict", request: { status: "rejected" } });
    expect(await store.decide("req_missing", { kind: "approved_once", approver: "bob" })).toEqual({
      ok: false,
      reason: "not_found",
    });
    expect((await auditOf(store, r.request.id)).filter((e) => e.type === "decided")).toHaveLength(1);
  });

  it("requires a reason to reject and feedback to request more", async () => {
    const r = await store.submit(submission(token));
    if (!r.ok) throw new Error("refused");
    await expectUsageError(
      store.decide(r.request.id, { kind: "rejected", approver: "a", reason: "  " } as never),
      /needs a reason/,
    );
    await expectUsageError(store.decide(r.request.id, { kind: "request_more", approver: "a" } as never), /feedback/);
    await expectUsageError(store.decide(r.request.id, { kind: "expired", approver: "a" } as never), /kind/);
    const more = await store.decide(r.request.id, { kind: "request_more", approver: "a", feedback: "use bcc" });
    expect(more).toMatchObject({ ok: true, request: { status: "request_more", decision: { feedback: "use bcc" } } });
  });

  it("saves remembered rules with approved_remember, and forgets them with an audit entry", async () => {
    const r = await store.submit(submission(token));
    if (!r.ok) throw new Error("refused");
    const rule = {
      id: "remembered.email.send_email.abc",
      decision: "allow",
      op: "email.send_email",
      when: { args: { to: { in: ["bob@example.com"] } }, count: { max: 1 } },
    };
    const result = await store.decide(r.request.id, {
      kind: "approved_remember",
      approver: "alice",
      rules: [{ id: rule.id, op: rule.op, rule, token: null, expires_at: null }],
    });
    expect(result).toMatchObject({ ok: true, request: { status: "approved" } });
    expect(await store.listRememberedRules()).toEqual([
      {
        id: rule.id,
        op: rule.op,
        rule,
        request_id: r.request.id,
        created_at: clock.now(),
        token: null,
        expires_at: null,
      },
    ]);
    expect(await store.forgetRule(rule.id, "alice")).toBe(true);
    expect(await store.forgetRule(rule.id, "alice")).toBe(false);
    expect(await store.listRememberedRules()).toEqual([]);
    expect((await auditOf(store)).at(-1)).toMatchObject({
      type: "rule_forgotten",
      actor: "alice",
      details: { rule: rule.id },
    });
  });

  it("keeps a remembered rule's token and lifetime; past its lifetime it is no longer listed", async () => {
    const r = await store.submit(submission(token));
    if (!r.ok) throw new Error("refused");
    const rule = {
      id: "remembered.email.send_email.life",
      decision: "allow",
      op: "email.send_email",
      when: { count: { max: 1 } },
    };
    const expires = clock.now() + 60_000;
    await store.decide(r.request.id, {
      kind: "approved_remember",
      approver: "alice",
      rules: [{ id: rule.id, op: rule.op, rule, token, expires_at: expires }],
    });
    expect(await store.listRememberedRules()).toEqual([
      expect.objectContaining({ id: rule.id, token, expires_at: expires }),
    ]);
    clock.advance(60_000);
    expect(await store.listRememberedRules()).toEqual([]);
  });

  it("expires pending requests past their deadline, by the sweep and at decision time", async () => {
    const swept = await store.submit(submission(token, "ask", { deadline_s: 60 }));
    const late = await store.submit(submission(token, "ask", { deadline_s: 120 }));
    const fresh = await store.submit(submission(token, "ask", { deadline_s: 3600 }));
    if (!swept.ok || !late.ok || !fresh.ok) throw new Error("refused");
    clock.advance(59_999);
    expect(await store.expireDue()).toEqual([]);
    clock.advance(1);
    expect(await store.expireDue()).toEqual([swept.request.id]);
    expect((await store.get(swept.request.id))?.status).toBe("expired");
    clock.advance(60_000);
    // no sweep ran: the decision itself finds the deadline passed
    expect(await store.decide(late.request.id, { kind: "approved_once", approver: "a" })).toMatchObject({
      ok: false,
      reason: "conflict",
      request: { status: "expired" },
    });
    expect((await auditOf(store, late.request.id)).map((e) => e.type)).toEqual(["submitted", "analyzed", "expired"]);
    expect(await store.expireDue()).toEqual([]);
    expect((await store.get(fresh.request.id))?.status).toBe("pending");
    const events = (await store.eventsSince(0)).filter((e) => e.type === "expired").map((e) => e.request_id);
    expect(events).toEqual([swept.request.id, late.request.id]);
  });

  it("lets a submitter withdraw its own pending request, and nobody else's", async () => {
    const other = await store.addToken("agent-2");
    const r = await store.submit(submission(token));
    if (!r.ok) throw new Error("refused");
    expect(await store.withdraw(r.request.id, other.name)).toEqual({ ok: false, reason: "not_found" });
    expect(await store.withdraw(r.request.id, token)).toMatchObject({ ok: true, request: { status: "withdrawn" } });
    expect(await store.withdraw(r.request.id, token)).toMatchObject({ ok: false, reason: "conflict" });
    expect(await store.decide(r.request.id, { kind: "approved_once", approver: "a" })).toMatchObject({
      ok: false,
      reason: "conflict",
    });
  });

  it("issues receipts only for approved requests, redeems each once, and one request runs once", async () => {
    const approved = await store.submit(submission(token, "auto_approved"));
    const pending = await store.submit(submission(token));
    if (!approved.ok || !pending.ok) throw new Error("refused");
    const exp = Math.floor(clock.now() / 1000) + 300;
    const [a, c] = [newJti(), newJti()];
    const receipt = (jti: string, request_id: string, at = exp) => ({
      jti,
      request_id,
      exp: at,
      token: `signed-${jti}`,
    });
    expect(await store.recordReceipt(receipt(a, pending.request.id))).toEqual({ ok: false, reason: "not_approved" });
    expect(await store.recordReceipt(receipt(a, "req_none"))).toEqual({ ok: false, reason: "not_found" });
    expect(await store.recordReceipt(receipt(a, approved.request.id))).toEqual({ ok: true, token: `signed-${a}` });
    expect(await store.redeemReceipt(newJti(), exp)).toBe("unknown");
    expect(await store.redeemReceipt(a, exp + 1)).toBe("unknown");
    expect(await store.redeemReceipt("not a jti", exp)).toBe("unknown");
    expect(await store.redeem(a, exp)).toBe(true);
    expect(await store.redeemReceipt(a, exp)).toBe("already_redeemed");
    expect(await store.recordReceipt(receipt(c, approved.request.id))).toEqual({ ok: false, reason: "already_run" });
    expect(await store.receiptToHandOut(approved.request.id)).toEqual({ kind: "already_run" });
    const audit = await auditOf(store, approved.request.id);
    expect(audit.map((e) => e.type)).toEqual([
      "submitted",
      "analyzed",
      "decided",
      "receipt_issued",
      "redeem_refused", // a's jti with another exp
      "redeemed",
      "redeem_refused",
    ]);
    expect(audit.at(-1)?.details).toEqual({ jti: a, outcome: "already_redeemed" });
  });

  it("hands out a request's receipt again while it is valid; a new one only after it expired unused, at most 3 in all", async () => {
    const start = Math.floor(clock.now() / 1000);
    const [first, racer, second, third, fourth] = [newJti(), newJti(), newJti(), newJti(), newJti()];
    const receipt = (jti: string, exp: number) => ({ jti, request_id: id, exp, token: `signed-${jti}` });
    const id = newRequestId();
    const r = await store.submit({
      ...submission(token, "auto_approved"),
      id,
      receipt: { jti: first, exp: start + 10, token: `signed-${first}` },
    });
    expect(r.ok).toBe(true);
    const issued = async () => (await auditOf(store, id)).filter((e) => e.type === "receipt_issued").length;
    for (let i = 0; i < 5; i++)
      expect(await store.receiptToHandOut(id)).toEqual({ kind: "valid", token: `signed-${first}` });
    // a reader that signed a receipt meanwhile records it only if none is valid: it gets the one there is
    expect(await store.recordReceipt(receipt(racer, start + 300))).toEqual({ ok: true, token: `signed-${first}` });
    expect(await issued()).toBe(1);
    clock.advance(10_000); // the first receipt expired unredeemed
    expect(await store.receiptToHandOut(id)).toEqual({ kind: "issue" });
    expect(await store.recordReceipt(receipt(second, start + 20))).toEqual({ ok: true, token: `signed-${second}` });
    expect(await store.receiptToHandOut(id)).toEqual({ kind: "valid", token: `signed-${second}` });
    clock.advance(10_000);
    expect(await store.recordReceipt(receipt(third, start + 30))).toEqual({ ok: true, token: `signed-${third}` });
    clock.advance(10_000);
    expect(await store.receiptToHandOut(id)).toEqual({ kind: "used_up" });
    expect(await store.recordReceipt(receipt(fourth, start + 300))).toEqual({ ok: false, reason: "used_up" });
    expect(await issued()).toBe(3);
    expect(await store.redeemReceipt(racer, start + 300)).toBe("unknown"); // never recorded
  });

  it("records an auto-approved request and its receipt in one transaction, or neither", async () => {
    const exp = Math.floor(clock.now() / 1000) + 300;
    const [id, jti] = [newRequestId(), newJti()];
    const r = await store.submit({
      ...submission(token, "auto_approved"),
      id,
      receipt: { jti, exp, token: `signed-${jti}` },
    });
    expect(r).toMatchObject({ ok: true, request: { id, status: "approved" } });
    expect((await auditOf(store, id)).map((e) => e.type)).toEqual([
      "submitted",
      "analyzed",
      "decided",
      "receipt_issued",
    ]);
    expect(await store.redeem(jti, exp)).toBe(true);
    // the same jti again: the receipt insert fails, and the request it came with is not stored either
    const second = newRequestId();
    const err = await store
      .submit({ ...submission(token, "auto_approved"), id: second, receipt: { jti, exp, token: `signed-${jti}` } })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toMatchObject({ class: "store_error" });
    expect(await store.get(second)).toBeNull();
    await expectUsageError(
      store.submit({
        ...submission(token, "ask"),
        id: newRequestId(),
        receipt: { jti: newJti(), exp, token: "signed" },
      }),
      /only when it is auto_approved/,
    );
    await expectUsageError(
      store.submit({ ...submission(token, "auto_approved"), receipt: { jti: newJti(), exp, token: "signed" } }),
      /names its id/,
    );
    await expectUsageError(store.submit({ ...submission(token, "auto_approved"), id: "req_short" }), /id/);
    expect(await store.verifyAuditChain()).toMatchObject({ ok: true });
  });

  it("commits simultaneous submissions together, each with its own seq, audit entries and receipt", async () => {
    const exp = Math.floor(clock.now() / 1000) + 300;
    const revoked = (await store.addToken(`gone-${dialect}`)).name;
    await store.revokeToken(revoked);
    const inputs = Array.from({ length: 12 }, (_, i) =>
      i % 4 === 3
        ? submission(revoked, "ask")
        : i % 2 === 0
          ? {
              ...submission(token, "auto_approved"),
              id: newRequestId(),
              receipt: { jti: newJti(), exp, token: "signed" },
            }
          : submission(token, "ask"),
    );
    const before = (await auditOf(store)).length;
    const results = await Promise.all(inputs.map((input) => store.submit(input)));
    const seqs = new Set<number>();
    for (const [i, result] of results.entries()) {
      if (i % 4 === 3) {
        expect(result).toEqual({ ok: false, reason: "token_inactive" });
        continue;
      }
      if (!result.ok) throw new Error("refused");
      const stored = await store.get(result.request.id);
      expect(stored).toEqual(result.request);
      seqs.add(result.request.seq);
      const auto = i % 2 === 0;
      expect((await auditOf(store, result.request.id)).map((e) => e.type)).toEqual(
        auto ? ["submitted", "analyzed", "decided", "receipt_issued"] : ["submitted", "analyzed"],
      );
      if (auto) expect(await store.redeem(inputs[i]!.receipt!.jti, exp)).toBe(true);
    }
    expect(seqs.size).toBe(9);
    // each request's entries follow one another, in the order the submissions arrived
    const added = (await auditOf(store)).slice(before).filter((e) => e.type !== "redeemed");
    const order = added.map((e) => e.request_id).filter((id, k, all) => id !== all[k - 1]);
    expect(order).toEqual(results.flatMap((r) => (r.ok ? [r.request.id] : [])));
    expect(await store.verifyAuditChain()).toMatchObject({ ok: true });
  });

  it("refuses to redeem an expired receipt", async () => {
    const r = await store.submit(submission(token, "auto_approved"));
    if (!r.ok) throw new Error("refused");
    const jti = newJti();
    const exp = Math.floor(clock.now() / 1000) + 10;
    await store.recordReceipt({ jti, request_id: r.request.id, exp, token: "signed" });
    clock.advance(15_001); // 10 s lifetime + 5 s tolerance, and a little
    expect(await store.redeemReceipt(jti, exp)).toBe("expired");
  });

  it("lists by status, newest first, with a keyset cursor", async () => {
    const mine = await store.addToken("lister-agent");
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const r = await store.submit(submission(mine.name, i % 2 === 0 ? "ask" : "auto_rejected"));
      if (r.ok) ids.push(r.request.id);
    }
    const rejected = await store.list({ status: "rejected", limit: 2 });
    expect(rejected.requests).toHaveLength(2);
    expect(rejected.requests.every((r) => r.status === "rejected")).toBe(true);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.list({ status: "pending", limit: 3, ...(cursor === undefined ? {} : { cursor }) });
      seen.push(...page.requests.map((r) => r.id));
      cursor = page.cursor;
    } while (cursor !== undefined);
    const pendingMine = seen.filter((id) => ids.includes(id));
    expect(pendingMine).toEqual([ids[6], ids[4], ids[2], ids[0]]);
    expect(new Set(seen).size).toBe(seen.length);
    await expectUsageError(store.list({ cursor: "abc" }), /cursor/);
    await expectUsageError(store.list({ limit: 0 }), /limit/);
    await expectUsageError(store.list({ status: "nope" as never }), /status/);
  });

  it("records what the authority audits itself: a preview's hash, a policy reload", async () => {
    const r = await store.submit(submission(token));
    if (!r.ok) throw new Error("refused");
    const preview = await store.recordAudit({
      type: "preview_shown",
      request_id: r.request.id,
      actor: "alice",
      preview_sha256: "c".repeat(64),
    });
    expect(preview).toMatchObject({ type: "preview_shown", details: { preview_sha256: "c".repeat(64) } });
    const reload = await store.recordAudit({
      type: "policy_reloaded",
      actor: "authority",
      ok: false,
      error: "line 3: bad rule",
    });
    expect(reload).toMatchObject({ request_id: null, details: { ok: false, error: "line 3: bad rule" } });
    await expectUsageError(store.recordAudit({ type: "decided", actor: "x" } as never), /type/);
    await expectUsageError(
      store.recordAudit({
        type: "preview_shown",
        request_id: r.request.id,
        actor: "a",
        preview_sha256: "c".repeat(64),
        preview: "secret",
      } as never),
      /preview/,
    );
    expect(await store.verifyAuditChain()).toMatchObject({ ok: true });
  });

  it("delivers change events to subscribers in order, and resumes after a given id", async () => {
    const seen: StoreEvent[] = [];
    const stop = await store.subscribe((events) => seen.push(...events));
    const a = await store.submit(submission(token));
    const b = await store.submit(submission(token, "auto_approved"));
    if (!a.ok || !b.ok) throw new Error("refused");
    await store.decide(a.request.id, { kind: "approved_once", approver: "alice" });
    await expect.poll(() => seen.length).toBe(3);
    expect(seen.map((e) => [e.type, e.request_id, e.status])).toEqual([
      ["pending", a.request.id, "pending"],
      ["resolved", b.request.id, "approved"],
      ["resolved", a.request.id, "approved"],
    ]);
    expect(seen.map((e) => e.id)).toEqual([...seen.map((e) => e.id)].sort((x, y) => x - y));
    await stop();
    const resumed: StoreEvent[] = [];
    const stop2 = await store.subscribe((events) => resumed.push(...events), { after: seen[0]!.id });
    await expect.poll(() => resumed.length).toBe(2);
    expect(resumed).toEqual(seen.slice(1));
    await stop2();
    await expectUsageError(store.eventsSince(-1), /last event id/);
    await expectUsageError(store.eventsSince(1.5), /last event id/);
    await expectUsageError(store.eventsSince(0, 0), /event limit/);
    await store.submit(submission(token));
    await new Promise((r) => setTimeout(r, 100));
    expect(resumed).toHaveLength(2);
  });

  it("keeps one verifiable chain through all of the above", async () => {
    const result = await store.verifyAuditChain();
    const entries = await auditOf(store);
    expect(result).toEqual({ ok: true, entries: entries.length, head: entries.at(-1)?.hash });
    expect(entries.map((e) => e.id)).toEqual(entries.map((_, i) => i + 1));
  });
});
