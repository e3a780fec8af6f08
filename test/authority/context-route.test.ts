// GET /v1/context against a real authority on 127.0.0.1 (SQLite): what a submitter learns of its
// world, only with its token, and nothing secret in it.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AuthorityContext } from "../../src/model/index.js";
import { authorityForSuite, example, HOME, type ApproverSession, type TestAuthority } from "./harness.js";

describe("GET /v1/context", () => {
  let a: TestAuthority;
  let alice: ApproverSession;
  authorityForSuite("sqlite", (started, session) => ((a = started), (alice = session)));

  const sandbox = mkdtempSync(join(tmpdir(), "countersign-context-roots-"));

  it("needs a submitter token: none, a wrong one and an approver session are refused", async () => {
    expect((await a.call("GET", "/v1/context", { token: null })).status).toBe(401);
    expect((await a.call("GET", "/v1/context", { token: "not-a-token" })).status).toBe(401);
    expect((await a.call("GET", "/v1/context", { token: null, session: alice })).status).toBe(401);
  });

  it("says the policy in force in plain words, its bounds, what agent manifests reach and how long things last", async () => {
    const answer = await a.call("GET", "/v1/context");
    expect(answer.status).toBe(200);
    const context = AuthorityContext.parse(answer.body);
    expect(context.policy.default).toBe("ask");
    expect(context.policy.rules).toContainEqual({
      id: "fs.write-outside-sandbox",
      decision: "deny",
      op: "fs.write_file",
      when: `a call of fs.write_file whose path does not satisfy (is under ${HOME}/Sandbox)`,
      reason: "files may only be written inside ~/Sandbox",
      remembered: false,
    });
    expect(context.bounds).toContainEqual({
      op: "fs.write_file",
      input: "path",
      within: [`${HOME}/Sandbox`],
      auto_pass: [],
      rules: expect.any(Array),
      see: ["fs.write-in-sandbox"],
    });
    expect(context.bounds).toContainEqual(
      expect.objectContaining({
        op: "http.get",
        input: "url",
        within: ["api.example.com"],
        auto_pass: ["api.example.com"],
      }),
    );
    expect(context.own_address).toBe("me@example.com"); // the harness configures one, as a user would
    expect(context.lifetimes).toMatchObject({
      request_deadline_s: 900,
      receipt_s: 300,
      remembered_rule_s: { hour: 3600, day: 86400, forever: null },
    });
    expect(context.agent_manifests?.limits).toMatchObject({ manifests: 16, steps: 8 });
  });

  it("the user's own address and the roots come from the authority's connections.toml", async () => {
    mkdirSync(sandbox, { recursive: true });
    writeFileSync(join(a.dataDir, "mail-token"), "secret-mail-credential", { mode: 0o600 });
    writeFileSync(
      join(a.dataDir, "connections.toml"),
      `[email]\naddress = "me@example.org"\ntoken_file = "${join(a.dataDir, "mail-token")}"\n\n[fs]\nroots = ["${sandbox}"]\n\n[http]\nhosts = ["api.example.com:443"]\n`,
    );
    const context = AuthorityContext.parse((await a.call("GET", "/v1/context")).body);
    expect(context.own_address).toBe("me@example.org");
    expect(context.agent_manifests?.roots.fs).toEqual([sandbox]);
    expect(context.agent_manifests?.hosts.http).toEqual(["api.example.com:443"]);
  });

  it("a remembered rule shows for the token it was saved for, not for another agent's", async () => {
    const first = await a.call("POST", "/v1/requests", {
      body: { program: example("notify-team.ts"), source_name: "notify-team.ts" },
    });
    expect(first.status).toBe(202);
    expect(
      (
        await a.call("POST", `/v1/requests/${first.body.id}/decision`, {
          session: alice,
          body: { decision: "approved_remember" },
        })
      ).status,
    ).toBe(200);
    const own = AuthorityContext.parse((await a.call("GET", "/v1/context")).body);
    expect(own.policy.rules.filter((r) => r.remembered)).toEqual([
      expect.objectContaining({ decision: "allow", op: "email.send_email" }),
    ]);
    const other = (await a.authority.state.store.addToken("other-agent")).token;
    const theirs = AuthorityContext.parse((await a.call("GET", "/v1/context", { token: other })).body);
    expect(theirs.policy.rules.some((r) => r.remembered)).toBe(false);
    expect(theirs.policy.sha256).not.toBe(own.policy.sha256);
  });

  it("a connections.toml that does not load: the rest is still said, and its error (which names the data directory) is not", async () => {
    const good = readFileSync(join(a.dataDir, "connections.toml"), "utf8");
    writeFileSync(join(a.dataDir, "connections.toml"), '[http]\nhosts = ["*.example.com"]\n');
    try {
      const answer = await a.call("GET", "/v1/context");
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ own_address: null, agent_manifests: null, policy: { default: "ask" } });
      expect(JSON.stringify(answer.body)).not.toContain(a.dataDir);
    } finally {
      writeFileSync(join(a.dataDir, "connections.toml"), good);
    }
  });

  it("carries nothing secret: no token, no approver secret, no credential, no path of the data directory", async () => {
    const text = JSON.stringify((await a.call("GET", "/v1/context")).body);
    expect(text).not.toContain(a.token);
    expect(text).not.toContain(readFileSync(join(a.dataDir, "approver.secret"), "utf8").trim());
    expect(text).not.toContain("secret-mail-credential");
    expect(text).not.toContain(a.dataDir);
    expect(text).not.toMatch(/token_file|submitter\.token|approver\.secret|mail-token/);
  });
});
