// The run use case with agent-submitted action manifests: a real authority on 127.0.0.1 (SQLite),
// the HTTP client the CLI uses, real QuickJS and the real http plugin, and the example issue
// tracker on loopback. file-issue.ts calls createIssue from trusted/agent (create_issue.toml).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localContext, manifestsFor, runAgentProgram, type AuthorityClient, type RunInput } from "../../src/app/index.js";
import { httpAuthority } from "../../src/cli/http-authority.js";
import { openStore } from "../../src/store/index.js";
import { startTestAuthority, type ApproverSession, type TestAuthority } from "../authority/harness.js";
import { allowTracker, localized, startIssueTracker, type IssueTracker } from "../support/issue-tracker.js";

let a: TestAuthority;
let alice: ApproverSession;
let tracker: IssueTracker;
let env: NodeJS.ProcessEnv;
let client: AuthorityClient;
let program: string;
let manifest: { name: string; text: string };

beforeAll(async () => {
  tracker = await startIssueTracker();
  const dataDir = join(mkdtempSync(join(tmpdir(), "countersign-run-agent-")), "data");
  allowTracker(dataDir, tracker.host);
  a = await startTestAuthority("sqlite", { dataDir });
  alice = await a.login("alice");
  env = { HOME: join(dataDir, ".."), COUNTERSIGN_HOME: dataDir };
  client = httpAuthority({ url: a.url, token: a.token });
  program = localized("examples/file-issue.ts", tracker.host);
  manifest = { name: "create_issue.toml", text: localized("examples/agent-manifests/create_issue.toml", tracker.host) };
});

afterAll(async () => {
  await a?.close();
  await tracker?.close();
});

async function run(manifests: RunInput["manifests"], runClient = client) {
  const ctx = localContext(env);
  try {
    return await runAgentProgram(ctx, { source: program, entry: "file-issue.ts", ...(manifests === undefined ? {} : { manifests }) }, { client: runClient });
  } finally {
    await ctx.close();
  }
}

/** Approve the one pending request once it appears; its id. */
async function approveWhenPending(): Promise<string> {
  for (;;) {
    const pending = await a.call("GET", "/v1/requests?status=pending", { session: alice });
    const id = pending.body.requests?.[0]?.id as string | undefined;
    if (id !== undefined) {
      expect((await a.call("POST", `/v1/requests/${id}/decision`, { session: alice, body: { decision: "approved_once" } })).status).toBe(200);
      return id;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

const ISSUE = JSON.stringify({ title: "Nightly build fails", body: "The nightly build has failed since Monday." });

describe("runAgentProgram with agent manifests", () => {
  it("submits the manifests, asks, and once approved the agent action's POST reaches the tracker with the issue", async () => {
    const before = tracker.received.length;
    const [report, id] = await Promise.all([run([manifest]), approveWhenPending()]);
    expect(report).toMatchObject({
      outcome: "executed",
      check: { ok: true, effects: 1 },
      policy: { decision: "ask", rules: ["http.post-asks"] },
      request: { id },
      approval: { decision: "approved_once", approver: "alice" },
      execution: { outcome: "returned", calls: [{ op: "agent.create_issue", status: "done" }], refused: 0 },
    });
    expect(tracker.received.slice(before)).toEqual([{ method: "POST", url: "/repos/acme/widgets/issues", contentType: "application/json", body: ISSUE }]);
    // The authority analyzed the program with exactly these manifests: the request shows the agent action.
    const request = await a.call("GET", `/v1/requests/${id}`, { session: alice });
    expect(request.body.facts.agentManifests.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(request.body.facts.effects[0].agentAction.op).toBe("agent.create_issue");
    // What the person was shown is what ran: the store kept exactly the canonical text of the manifests
    // this runner checked (the hash its receipt was verified against), and the page shows their action.
    const ctx = localContext(env);
    try {
      const ran = manifestsFor(ctx.manifests(), ctx.dataDir, [manifest]).agent!;
      const kept = await openStore({ dataDir: a.dataDir, database: a.database });
      try {
        expect((await kept.get(id))?.agent_manifests).toBe(ran.text);
      } finally {
        await kept.close();
      }
      expect(request.body.facts.agentManifests.sha256).toBe(ran.sha256);
    } finally {
      await ctx.close();
    }
    const page = await a.call("GET", `/v1/requests/${id}/page`, { session: alice });
    expect(page.body.agent_manifests).toMatchObject({ sha256: request.body.facts.agentManifests.sha256, actions: [{ op: "agent.create_issue", steps: [{ op: "http.post" }] }] });
  });

  it("a receipt issued for other agent manifests: receipt_invalid (manifests_mismatch) before it is redeemed, nothing sent", async () => {
    // The same program approved with a manifest that differs only in its description.
    const other = { name: "create_issue.toml", text: manifest.text.replace("Open an issue", "Open a ticket") };
    const submitted = await client.submit({ program, source_name: "file-issue.ts", manifests: [other] });
    if (submitted.status !== "pending") throw new Error(`expected a request that asks, got ${submitted.status}`);
    expect((await a.call("POST", `/v1/requests/${submitted.id}/decision`, { session: alice, body: { decision: "approved_once" } })).status).toBe(200);
    const foreign = (await client.decision(submitted.id, 0)).receipt!;
    const redeemed: string[] = [];
    const swapped: AuthorityClient = {
      ...client,
      decision: async (id, wait, signal) => {
        const answer = await client.decision(id, wait, signal);
        return answer.status === "approved" ? { ...answer, receipt: foreign } : answer;
      },
      redeem: async (jti, exp) => {
        redeemed.push(jti);
        await client.redeem(jti, exp);
      },
    };
    const before = tracker.received.length;
    const [report] = await Promise.all([run([manifest], swapped), approveWhenPending()]);
    expect(report).toMatchObject({ outcome: "failed", error: { class: "receipt_invalid", details: { reason: "manifests_mismatch" } } });
    expect(report.execution).toBeUndefined();
    expect(redeemed).toEqual([]);
    expect(tracker.received.length).toBe(before);
  });

  it("invalid agent manifests: refused with every problem before anything is submitted", async () => {
    const requests = async () => (await a.call("GET", "/v1/requests?limit=500", { session: alice })).body.requests.length as number;
    const before = await requests();
    const bad = { name: "create_issue.toml", text: manifest.text.replace('op = "post"', 'op = "delete"') };
    const report = await run([bad]);
    expect(report).toMatchObject({ outcome: "refused", error: { class: "analysis_rejected", details: { reason: "invalid_agent_manifests" } } });
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
