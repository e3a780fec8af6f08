// `countersign context`, in process against a real authority on 127.0.0.1 (SQLite): the authority's
// part asked with the submitter token, the runner's part from its own data directory, which here
// is another one (an authority elsewhere), so each part is seen to come from where it should.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AgentContext } from "../../src/app/index.js";
import type { Io } from "../../src/cli/command.js";
import { main } from "../../src/cli/main.js";
import { packageRoot } from "../../src/model/paths.js";
import { HOME, startTestAuthority, type TestAuthority } from "../authority/harness.js";
import { isolatedEnv } from "../support/isolated-env.js";

let a: TestAuthority;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  a = await startTestAuthority("sqlite");
  writeFileSync(
    join(a.dataDir, "connections.toml"),
    `[email]\naddress = "me@example.org"\n\n[http]\nhosts = ["api.example.com:443"]\n`,
  );
  env = isolatedEnv({ COUNTERSIGN_URL: a.url, COUNTERSIGN_TOKEN: a.token });
  writeFileSync(
    join(env.COUNTERSIGN_HOME!, "connections.toml"),
    `[fs]\nroots = ["${env.HOME}/Sandbox"]\n\n[http]\nhosts = ["runner.example.com:443"]\n`,
  );
});

afterAll(async () => a?.close());

async function run(runEnv: NodeJS.ProcessEnv, ...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const io: Io = {
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
    readStdin: async () => "",
    env: runEnv,
    cwd: packageRoot,
  };
  return { code: await main(argv, io), out, err };
}

describe("countersign context", () => {
  it("--json: the authority's policy, address and bounds, and this runner's roots, hosts and limits", async () => {
    const { code, out } = await run(env, "context", "--json");
    expect(code).toBe(0);
    const view = AgentContext.parse(JSON.parse(out));
    expect(view.authority_url).toBe(a.url);
    expect(view.authority.own_address).toBe("me@example.org");
    expect(view.authority.agent_manifests?.hosts.http).toEqual(["api.example.com:443"]);
    expect(view.authority.bounds).toContainEqual(
      expect.objectContaining({ op: "fs.make_dir", input: "path", within: [`${HOME}/Sandbox`] }),
    );
    expect(view.runner.roots.fs).toEqual([`${env.HOME}/Sandbox`]);
    expect(view.runner.hosts.http).toEqual(["runner.example.com:443"]);
    expect(view.runner.sandbox).toEqual({
      memory_bytes: expect.any(Number),
      cpu_ms: 10_000,
      wall_ms: 60_000,
      output_bytes: 1 << 20,
      max_calls: 10_000,
    });
    expect(out).not.toContain(a.token);
    expect(out).not.toContain(a.dataDir);
    expect(out).not.toContain(env.COUNTERSIGN_HOME!);
  });

  it("text: address, where writes and hosts may go, every rule in words with the default, the limits", async () => {
    const { code, out } = await run(env, "context");
    expect(code).toBe(0);
    expect(out).toContain(`authority: ${a.url}`);
    expect(out).toContain("your address: me@example.org");
    expect(out).toContain(`  fs.write_file path: only within ${HOME}/Sandbox; see the rule fs.write-in-sandbox\n`);
    expect(out).toContain(
      "  http.get url: only within api.example.com; runs without asking within api.example.com when nothing else asks\n",
    );
    expect(out).toContain(`  fs roots: ${env.HOME}/Sandbox\n`);
    expect(out).toContain("  http hosts: runner.example.com:443\n");
    expect(out).toContain("  allow email.to-myself: every to of email.send_email is in [me@example.com]\n");
    expect(out).toContain(
      "  deny  http.unlisted-host: a call of http.* whose url does not satisfy (has a host in [api.example.com]) (HTTP requests may only go to the hosts listed in the policy)\n",
    );
    expect(out).toContain("  anything else: ask (the default)\n");
    expect(out).toMatch(/program: 10000 ms CPU, 60000 ms in all, \d+ bytes of memory, 10000 trusted calls/);
    expect(out).toContain("a receipt lasts 300 s");
  });

  it("without an address configured it says so", async () => {
    const saved = readFileSync(join(a.dataDir, "connections.toml"), "utf8");
    writeFileSync(join(a.dataDir, "connections.toml"), "");
    try {
      const { out } = await run(env, "context");
      expect(out).toContain("your address: none configured (address in the [email] connection of connections.toml)");
    } finally {
      writeFileSync(join(a.dataDir, "connections.toml"), saved);
    }
  });

  it("no authority configured, or a token it refuses: exit 2 with what to do, nothing on stdout", async () => {
    const none = await run(isolatedEnv(), "context");
    expect(none.code).toBe(2);
    expect(none.out).toBe("");
    expect(none.err).toMatch(/no authority is configured: start one with `countersign serve`/);
    const refused = await run({ ...env, COUNTERSIGN_TOKEN: "cs_not-a-token" }, "context", "--json");
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.out).error.class).toBe("capability_denied");
  });

  it("an unknown flag or an argument is a usage error", async () => {
    expect((await run(env, "context", "--verbose")).code).toBe(2);
    expect((await run(env, "context", "extra")).code).toBe(2);
  });
});
