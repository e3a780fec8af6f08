// Agent-submitted action manifests through a real authority (SQLite): checked (422 with every
// problem), analyzed by the worker threads into the real ops, decided by the policy, approved by a
// person, and the receipt bound to exactly those manifests.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { importJwks, verifyReceipt } from "../../src/receipt/index.js";
import { packageRoot } from "../../src/model/paths.js";
import { authorityForSuite, example, type ApproverSession, type TestAuthority } from "./harness.js";

const manifest = {
  name: "create_issue.toml",
  text: readFileSync(join(packageRoot, "examples/agent-manifests/create_issue.toml"), "utf8"),
};
const program = example("file-issue.ts");
const utf8 = (text: string) => new TextEncoder().encode(text);

describe("agent manifests through the authority", () => {
  let a: TestAuthority;
  let alice: ApproverSession;
  authorityForSuite("sqlite", (started, session) => ((a = started), (alice = session)));

  it("POST /v1/check: the facts show the agent action's real op and where it came from", async () => {
    const answer = await a.call("POST", "/v1/check", {
      body: { program, source_name: "file-issue.ts", manifests: [manifest] },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.facts.effects).toEqual([
      expect.objectContaining({
        op: "http.post",
        agentAction: expect.objectContaining({ op: "agent.create_issue", step: "create" }),
      }),
    ]);
    expect(answer.body.decision.kind).toBe("ask");
  });

  it("refuses invalid agent manifests with 422 and every problem, and stores nothing", async () => {
    const before = (await a.call("GET", "/v1/requests?limit=500", { session: alice })).body.requests.length;
    const bad = {
      name: "bad.toml",
      text: manifest.text
        .replace('op = "post"', 'op = "delete"')
        .replace('name = "create_issue"', 'name = "send_email"'),
    };
    const answer = await a.call("POST", "/v1/requests", { body: { program, manifests: [bad] } });
    expect(answer.status).toBe(422);
    expect(answer.body.error).toMatchObject({
      class: "analysis_rejected",
      boundary: "manifest",
      details: { reason: "invalid_agent_manifests" },
    });
    expect(
      answer.body.error.details.errors.map((e: { field: string; line: number }) => `${e.line} ${e.field}`),
    ).toEqual(["5 name", "26 execute[0].op"]);
    expect(
      (await a.call("POST", "/v1/check", { body: { program, manifests: [{ name: "x.toml", text: "= broken" }] } }))
        .status,
    ).toBe(422);
    expect((await a.call("GET", "/v1/requests?limit=500", { session: alice })).body.requests.length).toBe(before);
  });

  it("a malformed manifests field is 400", async () => {
    expect((await a.call("POST", "/v1/check", { body: { program, manifests: [{ name: "x.toml" }] } })).status).toBe(
      400,
    );
    expect((await a.call("POST", "/v1/check", { body: { program, manifests: "x" } })).status).toBe(400);
  });

  it("submit, approve, and the receipt binds the program and the agent manifests' hash", async () => {
    const submitted = await a.call("POST", "/v1/requests", {
      body: { program, source_name: "file-issue.ts", manifests: [manifest] },
    });
    expect(submitted.status).toBe(202);
    const id = submitted.body.id;
    const review = await a.call("GET", `/v1/requests/${id}`, { session: alice });
    const sha256 = review.body.facts.agentManifests.sha256;
    expect(sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(review.body.facts.effects[0].agentAction.description).toBe(
      "Open an issue in a repository of the example issue tracker.",
    );
    expect(
      (await a.call("POST", `/v1/requests/${id}/decision`, { session: alice, body: { decision: "approved_once" } }))
        .status,
    ).toBe(200);
    const decided = await a.call("GET", `/v1/requests/${id}/decision`);
    expect(decided.body).toMatchObject({ status: "approved", receipt: expect.any(String) });
    const jwks = importJwks((await a.call("GET", "/.well-known/jwks.json")).body);
    const opts = { jwks, issuer: "countersign-local", programBytes: utf8(program) };
    const verified = await verifyReceipt(decided.body.receipt, { ...opts, agentManifests: sha256 });
    expect(verified.claims.agent_manifests).toEqual({ sha256 });
    expect(verified.claims.grants.map((g) => g.op)).toEqual(["http.post"]);
    await expect(verifyReceipt(decided.body.receipt, opts)).rejects.toMatchObject({
      class: "receipt_invalid",
      details: { reason: "manifests_mismatch" },
    });
  });

  it("the same program with other agent manifests is analyzed anew, not served from the facts cache", async () => {
    const other = { name: "create_issue.toml", text: manifest.text.replace("/issues", "/pulls") };
    const one = await a.call("POST", "/v1/check", { body: { program, manifests: [manifest] } });
    const two = await a.call("POST", "/v1/check", { body: { program, manifests: [other] } });
    expect(one.body.facts.effects[0].args.url.values).toEqual(["https://api.example.com/repos/acme/widgets/issues"]);
    expect(two.body.facts.effects[0].args.url.values).toEqual(["https://api.example.com/repos/acme/widgets/pulls"]);
    expect(two.body.facts.agentManifests.sha256).not.toBe(one.body.facts.agentManifests.sha256);
  });
});
