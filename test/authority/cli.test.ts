// The authority's commands, run in process against real data directories and a real authority:
// init, ui, token, audit, policy list/forget, and check through the authority or without it.
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Io } from "../../src/cli/command.js";
import { main } from "../../src/cli/main.js";
import { packageRoot } from "../../src/model/paths.js";
import { DIALECTS, rawSql } from "../store/fixtures.js";
import { isolatedEnv } from "../support/isolated-env.js";
import { example, HOME, startTestAuthority, type TestAuthority } from "./harness.js";

function capture(env: NodeJS.ProcessEnv): Io & { out: string; err: string } {
  const io = {
    out: "",
    err: "",
    stdout: (t: string) => void (io.out += t),
    stderr: (t: string) => void (io.err += t),
    readStdin: async () => "",
    env,
    cwd: packageRoot,
  };
  return io;
}

async function run(env: NodeJS.ProcessEnv, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = capture(env);
  const code = await main(argv, io);
  return { code, out: io.out, err: io.err };
}

describe("countersign init", () => {
  it("makes the data directory an authority needs, private files 0600, and nothing more on a second run", async () => {
    const env = isolatedEnv();
    const data = env.COUNTERSIGN_HOME!;
    const first = await run(env, "init", "--json");
    expect(first.code).toBe(0);
    const result = JSON.parse(first.out);
    expect(result.tokenFile).toBe(join(data, "submitter.token"));
    for (const file of [
      "approver.secret",
      "submitter.token",
      "connections.toml",
      "authority.json",
      "policies/default.toml",
      "policies/tests/default.toml",
      "keys/keyring.json",
      "countersign.db",
    ]) {
      expect([file, existsSync(join(data, file))]).toEqual([file, true]);
    }
    for (const secret of ["approver.secret", "submitter.token", "keys/keyring.json"])
      expect((statSync(join(data, secret)).mode & 0o777).toString(8)).toBe("600");
    expect(readFileSync(join(data, "submitter.token"), "utf8")).toMatch(/^cs_[A-Za-z0-9_-]{43}\n$/);
    expect((await run(env, "policy", "check")).code).toBe(0); // the copied policy is valid as it is
    const token = readFileSync(join(data, "submitter.token"), "utf8");
    const second = await run(env, "init");
    expect(second.out).toContain("has everything already");
    expect(readFileSync(join(data, "submitter.token"), "utf8")).toBe(token);
  });
});

describe.each(DIALECTS)("the authority's commands over %s", (dialect) => {
  let a: TestAuthority;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    a = await startTestAuthority(dialect);
    // HOME as the authority's: `~` in the policy (and so its sha256) means the same on both sides.
    env = { ...isolatedEnv(), HOME, COUNTERSIGN_HOME: a.dataDir, COUNTERSIGN_DATABASE: a.database };
  });
  afterAll(async () => a?.close());

  it("ui prints a link that logs in once", async () => {
    const { code, out } = await run(env, "ui", "--as", "dana");
    expect(code).toBe(0);
    const link = out.trim();
    expect(link.startsWith(`${a.url}/login?link=`)).toBe(true);
    const first = await fetch(link, { redirect: "manual" });
    expect(first.status).toBe(303);
    const cookie = first.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    expect((await fetch(`${a.url}/v1/session`, { headers: { cookie } })).status).toBe(200);
    expect((await fetch(link, { redirect: "manual" })).status).toBe(403);
    expect((await run({ ...isolatedEnv() }, "ui")).err).toContain("no authority has served");
    const json = JSON.parse((await run(env, "ui", "--json")).out);
    expect(json).toMatchObject({
      url: expect.stringContaining("/login?link="),
      approver: expect.any(String),
      expires_at: expect.any(String),
    });
  });

  it("ui opens the link with $BROWSER when there is one, never with --no-open", async () => {
    const dir = mkdtempSync(join(tmpdir(), "countersign-browser-"));
    const browser = join(dir, "browser.sh");
    writeFileSync(
      browser,
      `#!/bin/sh\nprintf '%s' "$1" > "${dir}/opened.tmp" && mv "${dir}/opened.tmp" "${dir}/opened"\n`,
      { mode: 0o755 },
    );
    const quiet = await run({ ...env, BROWSER: browser }, "ui", "--no-open");
    expect(quiet.err).toContain("countersign ui: open the link");
    const { out, err } = await run({ ...env, BROWSER: browser }, "ui");
    expect(err).toContain("opened in your browser");
    for (let i = 0; i < 100 && !existsSync(join(dir, "opened")); i++) await new Promise((r) => setTimeout(r, 50));
    expect(readFileSync(join(dir, "opened"), "utf8")).toBe(out.trim()); // the one link, and only that run's
    expect((await run({ ...env, BROWSER: join(dir, "missing") }, "ui")).err).toContain("countersign ui: open the link");
  });

  it("token add / list / revoke: a new agent's token works until it is revoked, at once", async () => {
    const added = await run(env, "token", "add", "build-bot");
    expect(added.code).toBe(0);
    const token = added.out.trim();
    const submit = () =>
      fetch(`${a.url}/v1/check`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ program: example("read-notes.ts") }),
      });
    expect((await submit()).status).toBe(200);
    expect((await run(env, "token", "add", "build-bot")).code).toBe(2); // an active name is not replaced
    const listed = JSON.parse((await run(env, "token", "list", "--json")).out).tokens;
    expect(listed.map((t: { name: string; revoked_at: string | null }) => [t.name, t.revoked_at === null])).toEqual(
      expect.arrayContaining([
        ["agent", true],
        ["build-bot", true],
      ]),
    );
    expect((await run(env, "token", "revoke", "build-bot")).code).toBe(0);
    expect((await submit()).status).toBe(401);
    expect((await run(env, "token", "revoke", "build-bot")).code).toBe(2);
    expect((await run(env, "token", "add", "../evil")).code).toBe(2);
  });

  it("policy list shows remembered rules with their ids; policy forget removes one", async () => {
    const session = await a.login("erin");
    const program = example("notify-team.ts").replace("Weekly report ready", `Remember me (${dialect})`);
    const { id } = (await a.call("POST", "/v1/requests", { body: { program } })).body;
    await a.call("POST", `/v1/requests/${id}/decision`, { session, body: { decision: "approved_remember" } });
    const listed = JSON.parse((await run(env, "policy", "list", "--json")).out);
    const rule = listed.rules.find((r: { request_id?: string }) => r.request_id === id);
    expect(rule).toMatchObject({
      decision: "allow",
      op: "email.send_email",
      from: "remembered",
      token: "agent",
      expires_at: expect.any(String),
    });
    expect(Date.parse(rule.expires_at) - Date.now()).toBeGreaterThan(3_500_000); // the default: this token, one hour
    expect((await run(env, "policy", "list")).out).toContain(
      `${rule.id}  (remembered from request ${id}, for token agent, until ${rule.expires_at})`,
    );
    expect((await a.call("POST", "/v1/requests", { body: { program } })).status).toBe(200);
    expect((await run(env, "policy", "forget", rule.id)).out).toContain(`forgot ${rule.id}`);
    expect((await a.call("POST", "/v1/requests", { body: { program } })).status).toBe(202);
    expect((await run(env, "policy", "forget", rule.id)).code).toBe(2);
  });

  it("check gives the same output through the authority as without it", async () => {
    const through = { ...env, COUNTERSIGN_URL: a.url };
    const without = { ...env, COUNTERSIGN_URL: "http://127.0.0.1:1" };
    const notAnAuthority = createServer((_, res) => res.end("<html>hello</html>"));
    await new Promise<void>((resolve) => notAnAuthority.listen(0, "127.0.0.1", resolve));
    const stale = { ...env, COUNTERSIGN_URL: `http://127.0.0.1:${(notAnAuthority.address() as AddressInfo).port}` }; // another program on a stale URL
    expect(await run(stale, "check", "examples/notify-team.ts")).toEqual(
      await run(without, "check", "examples/notify-team.ts"),
    );
    notAnAuthority.close();
    for (const args of [
      ["examples/notify-team.ts"],
      ["examples/notify-team.ts", "--json"],
      ["examples/refuted.ts"],
      ["examples/read-notes.ts", "--json"],
    ]) {
      const viaAuthority = await run(through, "check", ...args);
      const local = await run(without, "check", ...args);
      expect(viaAuthority).toEqual(local);
    }
  });

  it("check uses the authority's policy in force: a rule remembered there applies", async () => {
    const session = await a.login("gina");
    const program = example("notify-team.ts").replace("Weekly report ready", `Checked (${dialect})`);
    const { id } = (await a.call("POST", "/v1/requests", { body: { program } })).body;
    await a.call("POST", `/v1/requests/${id}/decision`, { session, body: { decision: "approved_remember" } });
    const file = join(a.dataDir, "checked.ts");
    writeFileSync(file, program);
    const viaAuthority = await run({ ...env, COUNTERSIGN_URL: a.url }, "check", file, "--json");
    expect(JSON.parse(viaAuthority.out).decision.kind).toBe("auto_approved");
  });

  it("audit verify names a changed entry; audit export --jsonl gives every entry as stored", async () => {
    const exported = await run(env, "audit", "export", "--jsonl");
    expect(exported.code).toBe(0);
    const entries = exported.out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(entries.map((e) => e.id)).toEqual(entries.map((_, i) => i + 1));
    expect((await run(env, "audit", "verify")).out).toContain(`audit chain intact: ${entries.length} entries`);
    const target = entries[Math.floor(entries.length / 2)];
    await rawSql(a.database, `UPDATE audit SET details = '{"kind":"approved_once"}' WHERE id = ${target.id}`);
    const verified = await run(env, "audit", "verify");
    expect(verified.code).toBe(1);
    expect(verified.out).toContain(`audit chain broken at entry ${target.id}`);
    expect((await run(env, "audit", "export")).code).toBe(2);
  });
});
