import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAnalyzer, type Analyzer } from "../../src/analyze/index.js";
import { checkProgram } from "../../src/app/check-program.js";
import type { AppContext } from "../../src/app/context.js";
import { decideRequest } from "../../src/app/decide-request.js";
import { issueRequestReceipt } from "../../src/app/issue-request-receipt.js";
import { startProgramRun } from "../../src/app/start-run.js";
import { submitRequest } from "../../src/app/submit-request.js";
import { loadPolicy } from "../../src/config/index.js";
import { packageRoot } from "../../src/model/paths.js";
import { MemoryRedemptionStore } from "../../src/receipt/index.js";
import { fileKeyStore, MemoryRequestStore } from "../../src/store/index.js";
import { shippedManifests } from "../policy/helpers.js";

const manifests = shippedManifests();
const policy = loadPolicy(join(packageRoot, "policies"), { manifests, home: "/home/user" });
const analyzer: Analyzer = createAnalyzer(manifests);
afterAll(() => analyzer.dispose());

/** A context with everything explicit: a fixed clock that tests move, counted ids, stores in a temp folder and in memory. */
function testContext(): AppContext & { clock: { now: Date } } {
  const dataDir = mkdtempSync(join(tmpdir(), "countersign-app-"));
  const clock = { now: new Date("2030-01-01T00:00:00Z") };
  let n = 0;
  return {
    clock,
    dataDir,
    home: "/home/user",
    issuer: "countersign-test",
    now: () => clock.now,
    newId: () => `req-${++n}`,
    manifests: () => manifests,
    policy: () => policy,
    analyzer: async () => analyzer,
    keys: fileKeyStore(dataDir),
    redemptions: new MemoryRedemptionStore(() => clock.now.getTime()),
    requests: new MemoryRequestStore(),
  };
}

const example = (name: string) => ({ source: readFileSync(join(packageRoot, "examples", name), "utf8"), entry: name });
const bytes = (source: string) => new TextEncoder().encode(source);

describe("use cases over an explicit context", () => {
  it("check: the facts and the policy's dry-run decision, nothing recorded", async () => {
    const ctx = testContext();
    const { facts, decision } = await checkProgram(ctx, example("notify-team.ts"));
    expect(facts.ok).toBe(true);
    expect(decision.kind).toBe("ask");
    expect(await ctx.requests.get("req-1")).toBeUndefined();
  });

  it("submit, issue, start a run: an auto-approved program runs once", async () => {
    const ctx = testContext();
    const program = example("read-notes.ts");
    const request = await submitRequest(ctx, program);
    expect(request).toMatchObject({ id: "req-1", created: "2030-01-01T00:00:00.000Z", decision: { kind: "auto_approved" }, rationale: "Catch up on this week's notes and the build status." });
    expect(await ctx.requests.get("req-1")).toEqual(request);
    const token = await issueRequestReceipt(ctx, request.id);
    const run = await startProgramRun(ctx, token, bytes(program.source));
    expect(run.claims).toMatchObject({ sub: "req-1", decision: "auto_approved", iss: "countersign-test", program: request.program });
    await expect(startProgramRun(ctx, token, bytes(program.source))).rejects.toMatchObject({ class: "receipt_invalid", details: { reason: "replayed" } });
  });

  it("a receipt is for the exact program bytes, and only while it is valid", async () => {
    const ctx = testContext();
    const program = example("read-notes.ts");
    const token = await issueRequestReceipt(ctx, (await submitRequest(ctx, program)).id);
    await expect(startProgramRun(ctx, token, bytes(program.source + " "))).rejects.toMatchObject({ details: { reason: "program_mismatch" } });
    ctx.clock.now = new Date(ctx.clock.now.getTime() + 3_600_000);
    await expect(startProgramRun(ctx, token, bytes(program.source))).rejects.toMatchObject({ details: { reason: "expired" } });
  });

  it("decide: a request the policy asked about gets a receipt only once a person approves it", async () => {
    const ctx = testContext();
    const request = await submitRequest(ctx, example("notify-team.ts"));
    expect(request.decision.kind).toBe("ask");
    await expect(issueRequestReceipt(ctx, request.id)).rejects.toMatchObject({ class: "approval_denied" });
    await expect(decideRequest(ctx, request.id, { kind: "rejected", approver: "me", reason: " " })).rejects.toMatchObject({ class: "usage_error", message: "a rejection needs a reason" });
    ctx.clock.now = new Date(ctx.clock.now.getTime() + 1000);
    const decided = await decideRequest(ctx, request.id, { kind: "approved_once", approver: "me" });
    expect(decided.human).toEqual({ kind: "approved_once", approver: "me", decided: "2030-01-01T00:00:01.000Z" });
    expect(await decideRequest(ctx, request.id, { kind: "approved_once", approver: "me" })).toEqual(decided); // the same decision again
    await expect(decideRequest(ctx, request.id, { kind: "rejected", approver: "me", reason: "no" })).rejects.toMatchObject({ details: { conflict: true } });
    const token = await issueRequestReceipt(ctx, request.id);
    const run = await startProgramRun(ctx, token, bytes(request.source));
    expect(run.claims).toMatchObject({ decision: "approved_once", approver: "me" });
  });

  it("a rejected request or one the policy settled gets no receipt, and nobody decides the latter", async () => {
    const ctx = testContext();
    const asked = await submitRequest(ctx, example("notify-team.ts"));
    await decideRequest(ctx, asked.id, { kind: "request_more", approver: "me", feedback: "send it to Alice only" });
    await expect(issueRequestReceipt(ctx, asked.id)).rejects.toMatchObject({ class: "approval_denied", message: expect.stringContaining("request_more") });
    const refused = await submitRequest(ctx, example("write-outside-sandbox.ts"));
    expect(refused.decision.kind).toBe("auto_rejected");
    await expect(decideRequest(ctx, refused.id, { kind: "approved_once", approver: "me" })).rejects.toMatchObject({ details: { conflict: true } });
    await expect(issueRequestReceipt(ctx, refused.id)).rejects.toMatchObject({ class: "approval_denied" });
    await expect(issueRequestReceipt(ctx, "nope")).rejects.toMatchObject({ class: "usage_error", message: "no request nope" });
  });
});
