import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAnalyzer, type Analyzer } from "../../src/analyze/index.js";
import {
  answerRequestQuestion,
  checkProgram,
  decideRequest,
  issueRequestReceipt,
  policyInForce,
  readRequest,
  redeemReceipt,
  startProgramRun,
  submitRequest,
  withdrawRequest,
  type AppContext,
} from "../../src/app/index.js";
import { loadPolicy } from "../../src/config/index.js";
import { packageRoot } from "../../src/model/paths.js";
import { MemoryRedemptionStore } from "../../src/receipt/index.js";
import { fileKeyStore, openStore, type Store } from "../../src/store/index.js";
import { policyDir, shippedManifests } from "../policy/helpers.js";

const manifests = shippedManifests();
const policy = loadPolicy(join(packageRoot, "policies"), { manifests, home: "/home/user" });
const analyzer: Analyzer = createAnalyzer(manifests);
const stores: Store[] = [];
afterAll(async () => {
  analyzer.dispose();
  await Promise.all(stores.map((s) => s.close()));
});

/** A context with everything explicit: a clock tests move, a real SQLite store and key files in a temp folder. */
async function testContext(): Promise<AppContext & { clock: { now: Date }; token: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), "countersign-app-"));
  const clock = { now: new Date("2030-01-01T00:00:00Z") };
  const store = await openStore({ dataDir, now: () => clock.now.getTime() });
  stores.push(store);
  const { name } = await store.addToken("agent");
  return {
    clock,
    token: name,
    dataDir,
    home: "/home/user",
    issuer: "countersign-test",
    now: () => clock.now,
    manifests: () => manifests,
    policy: () => policy,
    analyze: async ({ source, entry }) => analyzer.analyze(source, { entry }),
    keys: fileKeyStore(dataDir),
    redemptions: new MemoryRedemptionStore(() => clock.now.getTime()),
    store: async () => store,
    rememberedRules: () => store.listRememberedRules(),
  };
}

const example = (name: string) => ({ source: readFileSync(join(packageRoot, "examples", name), "utf8"), entry: name });
const bytes = (source: string) => new TextEncoder().encode(source);

describe("use cases over an explicit context and the real store", () => {
  it("check: the facts and the policy's dry-run decision, nothing recorded", async () => {
    const ctx = await testContext();
    const { facts, decision } = await checkProgram(ctx, example("notify-team.ts"), null);
    expect(facts.ok).toBe(true);
    expect(decision.kind).toBe("ask");
    expect((await (await ctx.store()).list()).requests).toEqual([]);
  });

  it("submit: an auto-approved program comes back with its receipt, stored with it; it runs once", async () => {
    const ctx = await testContext();
    const program = example("read-notes.ts");
    const { request, receipt } = await submitRequest(ctx, { token: ctx.token, program, rationale: "weekly catch-up" });
    expect(request).toMatchObject({
      status: "approved",
      token: "agent",
      rationale: "weekly catch-up",
      decision: { kind: "auto_approved", approver: null },
    });
    expect(await readRequest(ctx, request.id)).toEqual(request);
    const run = await startProgramRun(ctx, receipt!, bytes(program.source));
    expect(run.claims).toMatchObject({
      sub: request.id,
      decision: "auto_approved",
      iss: "countersign-test",
      program: request.facts.program,
    });
    await redeemReceipt(ctx, run.claims.jti, run.claims.exp);
    await expect(redeemReceipt(ctx, run.claims.jti, run.claims.exp)).rejects.toMatchObject({
      class: "receipt_invalid",
      details: { outcome: "already_redeemed" },
    });
    await expect(issueRequestReceipt(ctx, request.id)).rejects.toMatchObject({
      details: { reason: "conflict" },
      message: expect.stringContaining("has run"),
    });
  });

  it("a program the analysis refuses is no request: analysis_rejected with its diagnostics", async () => {
    const ctx = await testContext();
    const program = { source: "export default 1 +;", entry: "broken.ts" };
    await expect(submitRequest(ctx, { token: ctx.token, program })).rejects.toMatchObject({
      class: "analysis_rejected",
      details: { diagnostics: expect.arrayContaining([expect.objectContaining({ severity: "error" })]) },
    });
    expect((await (await ctx.store()).list()).requests).toEqual([]);
  });

  it("decide: a request the policy asked about gets a receipt only once a person approves it", async () => {
    const ctx = await testContext();
    const { request, receipt } = await submitRequest(ctx, { token: ctx.token, program: example("notify-team.ts") });
    expect(receipt).toBeUndefined();
    expect(request.status).toBe("pending");
    await expect(issueRequestReceipt(ctx, request.id)).rejects.toMatchObject({ class: "approval_denied" });
    await expect(
      decideRequest(ctx, request.id, { kind: "rejected", approver: "me", reason: " " }),
    ).rejects.toMatchObject({ class: "usage_error", message: expect.stringContaining("a rejection needs a reason") });
    ctx.clock.now = new Date(ctx.clock.now.getTime() + 1000);
    const decided = await decideRequest(ctx, request.id, { kind: "approved_once", approver: "me" });
    expect(decided).toMatchObject({
      changed: true,
      request: {
        status: "approved",
        decision: { kind: "approved_once", approver: "me", at: Date.UTC(2030, 0, 1, 0, 0, 1) },
      },
    });
    expect(await decideRequest(ctx, request.id, { kind: "approved_once", approver: "me" })).toEqual({
      ...decided,
      changed: false,
    }); // the same decision again
    await expect(
      decideRequest(ctx, request.id, { kind: "rejected", approver: "me", reason: "no" }),
    ).rejects.toMatchObject({ details: { reason: "conflict" } });
    await expect(issueRequestReceipt(ctx, request.id, { token: "someone-else" })).rejects.toMatchObject({
      details: { reason: "not_found" },
    });
    const token = await issueRequestReceipt(ctx, request.id, { token: ctx.token });
    const run = await startProgramRun(ctx, token, bytes(request.source));
    expect(run.claims).toMatchObject({ decision: "approved_once", approver: "me" });
  });

  it("approve and remember: the narrow rule joins the policy in force and the same program then passes on its own", async () => {
    const ctx = await testContext();
    const program = example("notify-team.ts");
    const first = await submitRequest(ctx, { token: ctx.token, program });
    const before = (await policyInForce(ctx)).policy.sha256;
    await decideRequest(ctx, first.request.id, { kind: "approved_remember", approver: "me" });
    const rules = await (await ctx.store()).listRememberedRules();
    expect(rules).toEqual([expect.objectContaining({ op: "email.send_email", request_id: first.request.id })]);
    const inForce = await policyInForce(ctx);
    expect(inForce.policy.sha256).not.toBe(before);
    expect(inForce.policy.rules.at(-1)).toMatchObject({ id: rules[0]!.id, decision: "allow", op: "email.send_email" });
    const again = await submitRequest(ctx, { token: ctx.token, program });
    expect(again.request.decision).toMatchObject({ kind: "auto_approved" });
    expect(again.receipt).toBeDefined();
    await (await ctx.store()).forgetRule(rules[0]!.id, "me");
    expect((await submitRequest(ctx, { token: ctx.token, program })).request.status).toBe("pending");
  });

  it("a remembered rule applies to the token it was saved for unless the approver chose every agent, and only for its lifetime", async () => {
    const ctx = await testContext();
    const other = (await (await ctx.store()).addToken("other-agent")).name;
    const program = example("notify-team.ts");
    const status = async (token: string) => (await submitRequest(ctx, { token, program })).request.status;
    // The default is the narrowest: this token, one hour.
    await decideRequest(ctx, (await submitRequest(ctx, { token: ctx.token, program })).request.id, {
      kind: "approved_remember",
      approver: "me",
    });
    expect(await (await ctx.store()).listRememberedRules()).toEqual([
      expect.objectContaining({ token: ctx.token, expires_at: ctx.clock.now.getTime() + 3_600_000 }),
    ]);
    expect(await status(ctx.token)).toBe("approved");
    expect(await status(other)).toBe("pending");
    expect((await checkProgram(ctx, program, null)).decision.kind).toBe("ask");
    expect((await checkProgram(ctx, program, ctx.token)).decision.kind).toBe("auto_approved");
    ctx.clock.now = new Date(ctx.clock.now.getTime() + 3_600_000);
    expect(await status(ctx.token)).toBe("pending");
    // Every agent, for a day: the other token too, until the day is over.
    await decideRequest(ctx, (await submitRequest(ctx, { token: other, program })).request.id, {
      kind: "approved_remember",
      approver: "me",
      scope: "everyone",
      lifetime: "day",
    });
    expect(await status(ctx.token)).toBe("approved");
    expect(await status(other)).toBe("approved");
    ctx.clock.now = new Date(ctx.clock.now.getTime() + 86_400_000);
    expect(await status(other)).toBe("pending");
    // Until removed: still there a year later.
    await decideRequest(ctx, (await submitRequest(ctx, { token: other, program })).request.id, {
      kind: "approved_remember",
      approver: "me",
      lifetime: "forever",
    });
    ctx.clock.now = new Date(ctx.clock.now.getTime() + 365 * 86_400_000);
    expect(await status(other)).toBe("approved");
    expect(await status(ctx.token)).toBe("pending");
  });

  it("approve and remember is refused, with the reason, when the program cannot be pinned to a rule", async () => {
    const ctx = await testContext();
    const { request } = await submitRequest(ctx, { token: ctx.token, program: example("draft-and-send.ts") });
    expect(request.status).toBe("pending");
    await expect(decideRequest(ctx, request.id, { kind: "approved_remember", approver: "me" })).rejects.toMatchObject({
      details: { reason: "cannot_remember" },
    });
    expect((await readRequest(ctx, request.id)).status).toBe("pending");
  });

  it("a rejected, withdrawn or policy-settled request gets no receipt, and nobody decides the latter", async () => {
    const ctx = await testContext();
    const asked = await submitRequest(ctx, { token: ctx.token, program: example("notify-team.ts") });
    await decideRequest(ctx, asked.request.id, {
      kind: "request_more",
      approver: "me",
      feedback: "send it to Alice only",
    });
    await expect(issueRequestReceipt(ctx, asked.request.id)).rejects.toMatchObject({
      class: "approval_denied",
      message: expect.stringContaining("request_more"),
    });
    const refused = await submitRequest(ctx, { token: ctx.token, program: example("write-outside-sandbox.ts") });
    expect(refused.request).toMatchObject({ status: "rejected", decision: { kind: "auto_rejected" } });
    await expect(
      decideRequest(ctx, refused.request.id, { kind: "approved_once", approver: "me" }),
    ).rejects.toMatchObject({ details: { reason: "conflict" } });
    await expect(issueRequestReceipt(ctx, refused.request.id)).rejects.toMatchObject({ class: "approval_denied" });
    await expect(issueRequestReceipt(ctx, "nope")).rejects.toMatchObject({
      class: "usage_error",
      message: "no request nope",
      details: { reason: "not_found" },
    });
    const withdrawn = await submitRequest(ctx, { token: ctx.token, program: example("notify-team.ts") });
    await expect(withdrawRequest(ctx, withdrawn.request.id, "other")).rejects.toMatchObject({
      details: { reason: "not_found" },
    });
    expect(await withdrawRequest(ctx, withdrawn.request.id, ctx.token)).toMatchObject({ status: "withdrawn" });
    await expect(withdrawRequest(ctx, withdrawn.request.id, ctx.token)).rejects.toMatchObject({
      details: { reason: "conflict", status: "withdrawn" },
    });
  });

  it("a question about a stored request: answered with the rules of the policy that decided it, with the grant's terms once that policy changed", async () => {
    const ctx = await testContext();
    const draftsToBob = (reason: string) =>
      loadPolicy(
        policyDir({
          "policy.toml": `[[rules]]\nid = "drafts-to-bob"\ndecision = "allow"\nop = "email.send_draft"\nwhen = { args = { to = { in = ["bob@example.com"] } } }\nreason = "${reason}"\n`,
        }),
        { manifests, home: "/home/user" },
      );
    const decidedBy = draftsToBob("drafts to Bob may go out");
    ctx.policy = () => decidedBy;
    const source = `import { program } from "countersign";\nimport { sendDraft } from "trusted/email";\nexport default program({ rationale: "Send it.", guarantees: [], async main() { await sendDraft({ draft_id: "d-1" }); } });\n`;
    const { request } = await submitRequest(ctx, { token: ctx.token, program: { source, entry: "send.ts" } });
    expect(request.policy.effects).toEqual([
      expect.objectContaining({ op: "email.send_draft", verdict: "allow", rule: "drafts-to-bob" }),
    ]);
    const who = async () => (await answerRequestQuestion(ctx, request.id, "Who gets the email?"))!.lines[0];
    expect(await who()).toMatch(
      /, to the recipients of the draft it sends: .*; the allow rule "drafts-to-bob" lets it through only when every To address is in \[bob@example\.com\]\.$/,
    );
    ctx.policy = () => draftsToBob("changed since");
    expect(await who()).toMatch(
      /; the allow rule "drafts-to-bob" lets it through only when the approval's terms hold, as that policy has changed since: every To address is in \[bob@example\.com\]\.$/,
    );
  });

  it("a revoked token submits nothing", async () => {
    const ctx = await testContext();
    await (await ctx.store()).revokeToken(ctx.token);
    await expect(submitRequest(ctx, { token: ctx.token, program: example("read-notes.ts") })).rejects.toMatchObject({
      class: "capability_denied",
    });
    expect((await (await ctx.store()).list()).requests).toEqual([]);
  });
});
