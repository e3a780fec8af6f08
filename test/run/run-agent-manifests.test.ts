// The run use case with agent-submitted action manifests: a real authority on 127.0.0.1 (SQLite),
// the HTTP client the CLI uses, real QuickJS and the real http plugin, and the example issue
// tracker on loopback. file-issue.ts calls createIssue from trusted/agent (create_issue.toml).
import { afterAll, describe, expect, it } from "vitest";
import { localContext, manifestsFor, type AuthorityClient, type RunInput } from "../../src/app/index.js";
import { openStore } from "../../src/store/index.js";
import { localized, startIssueTracker, type IssueTracker } from "../support/issue-tracker.js";
import { runHarnessForSuite } from "./harness.js";

let tracker: IssueTracker;
let program: string;
let manifest: { name: string; text: string };

const h = runHarnessForSuite(async () => {
  tracker = await startIssueTracker();
  program = localized("examples/file-issue.ts", tracker.host);
  manifest = { name: "create_issue.toml", text: localized("examples/agent-manifests/create_issue.toml", tracker.host) };
  return { trackerHost: tracker.host };
});
afterAll(() => tracker?.close());

const run = (manifests: RunInput["manifests"], client = h.client) =>
  h.run({ source: program, entry: "file-issue.ts", ...(manifests === undefined ? {} : { manifests }) }, { client });

const ISSUE = JSON.stringify({ title: "Nightly build fails", body: "The nightly build has failed since Monday." });

describe("runAgentProgram with agent manifests", () => {
  it("submits the manifests, asks, and once approved the agent action's POST reaches the tracker with the issue", async () => {
    const before = tracker.received.length;
    const [report, id] = await Promise.all([run([manifest]), h.decideWhenPending()]);
    expect(report).toMatchObject({
      outcome: "executed",
      check: { ok: true, effects: 1 },
      policy: { decision: "ask", rules: ["http.post-asks"] },
      request: { id },
      approval: { decision: "approved_once", approver: "alice" },
      execution: { outcome: "returned", calls: [{ op: "agent.create_issue", status: "done" }], refused: 0 },
    });
    expect(tracker.received.slice(before)).toEqual([
      { method: "POST", url: "/repos/acme/widgets/issues", contentType: "application/json", body: ISSUE },
    ]);
    // The authority analyzed the program with exactly these manifests: the request shows the agent action.
    const request = await h.a.call("GET", `/v1/requests/${id}`, { session: h.alice });
    expect(request.body.facts.agentManifests.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(request.body.facts.effects[0].agentAction.op).toBe("agent.create_issue");
    // What the person was shown is what ran: the store kept exactly the canonical text of the manifests
    // this runner checked (the hash its receipt was verified against), and the page shows their action.
    const ctx = localContext(h.env);
    try {
      const ran = manifestsFor(ctx.manifests(), ctx.dataDir, [manifest]).agent!;
      const kept = await openStore({ dataDir: h.a.dataDir, database: h.a.database });
      try {
        expect((await kept.get(id))?.agent_manifests).toBe(ran.text);
      } finally {
        await kept.close();
      }
      expect(request.body.facts.agentManifests.sha256).toBe(ran.sha256);
    } finally {
      await ctx.close();
    }
    const page = await h.a.call("GET", `/v1/requests/${id}/page`, { session: h.alice });
    expect(page.body.agent_manifests).toMatchObject({
      sha256: request.body.facts.agentManifests.sha256,
      actions: [{ op: "agent.create_issue", steps: [{ op: "http.post" }] }],
    });
  });

  it("a receipt issued for other agent manifests: receipt_invalid (manifests_mismatch) before it is redeemed, nothing sent", async () => {
    // The same program approved with a manifest that differs only in its description.
    const other = { name: "create_issue.toml", text: manifest.text.replace("Open an issue", "Open a ticket") };
    const submitted = await h.client.submit({ program, source_name: "file-issue.ts", manifests: [other] });
    if (submitted.status !== "pending") throw new Error(`expected a request that asks, got ${submitted.status}`);
    expect(await h.decideWhenPending()).toBe(submitted.id);
    const foreign = (await h.client.decision(submitted.id, 0)).receipt!;
    const redeemed: string[] = [];
    const swapped: AuthorityClient = {
      ...h.client,
      decision: async (id, wait, signal) => {
        const answer = await h.client.decision(id, wait, signal);
        return answer.status === "approved" ? { ...answer, receipt: foreign } : answer;
      },
      redeem: async (jti, exp) => {
        redeemed.push(jti);
        await h.client.redeem(jti, exp);
      },
    };
    const before = tracker.received.length;
    const [report] = await Promise.all([run([manifest], swapped), h.decideWhenPending()]);
    expect(report).toMatchObject({
      outcome: "failed",
      error: { class: "receipt_invalid", details: { reason: "manifests_mismatch" } },
    });
    expect(report.execution).toBeUndefined();
    expect(redeemed).toEqual([]);
    expect(tracker.received.length).toBe(before);
  });

  it("invalid agent manifests: refused with every problem before anything is submitted", async () => {
    const requests = async () =>
      (await h.a.call("GET", "/v1/requests?limit=500", { session: h.alice })).body.requests.length as number;
    const before = await requests();
    const bad = { name: "create_issue.toml", text: manifest.text.replace('op = "post"', 'op = "delete"') };
    const report = await run([bad]);
    expect(report).toMatchObject({
      outcome: "refused",
      error: { class: "analysis_rejected", details: { reason: "invalid_agent_manifests" } },
    });
    expect(report.error!.message).toContain("execute[0].op");
    expect(report.request).toBeUndefined();
    expect(await requests()).toBe(before);
  });

  it("without its manifests the program is refused: trusted/agent offers nothing it did not submit", async () => {
    const report = await run(undefined);
    expect(report.outcome).toBe("refused");
    expect(report.check!.ok).toBe(false);
    expect(report.check!.diagnostics.map((d) => d.message).join("\n")).toContain("trusted/agent");
    expect(report.request).toBeUndefined();
  });
});
