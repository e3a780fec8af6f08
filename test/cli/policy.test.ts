import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Io } from "../../src/cli/command.js";
import { main } from "../../src/cli/main.js";
import { packageRoot } from "../../src/model/paths.js";
import { policyDir } from "../policy/helpers.js";
import { isolatedEnv } from "../support/isolated-env.js";

function capture(env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = { stdout: (t) => out.push(t), stderr: (t) => err.push(t), readStdin: async () => "", env: isolatedEnv({ HOME: "/home/me", ...env }), cwd: packageRoot };
  return { io, out: () => out.join(""), err: () => err.join("") };
}

describe("countersign policy check", () => {
  it("accepts the shipped policy", async () => {
    const c = capture();
    expect(await main(["policy", "check", "policies"], c.io)).toBe(0);
    expect(c.out()).toMatch(/^policy ok: 11 rules in policies, default ask, sha256 [0-9a-f]{64}\n$/);
  });

  it("prints every problem as file:line: rule: field: message and exits 2", async () => {
    const dir = policyDir({ "p.toml": '[[rules]]\nid = "r1"\ndecision = "deny"\nop = "email.send_mail"\n' });
    const c = capture();
    expect(await main(["policy", "check", dir], c.io)).toBe(2);
    expect(c.out().split("\n").filter(Boolean)).toEqual([
      `${join(dir, "p.toml")}:1: rule "r1": reason: a deny rule needs a reason: the agent and the user see it`,
    ]);
    expect(c.err()).toMatch(/^1 problem in /);
  });

  it("--json reports the problems with their fields", async () => {
    const dir = policyDir({ "p.toml": '[[rules]]\nid = "r1"\ndecision = "allow"\nop = "email.send_mail"\n' });
    const c = capture();
    expect(await main(["policy", "check", dir, "--json"], c.io)).toBe(2);
    expect(JSON.parse(c.out())).toEqual({
      ok: false,
      dir,
      rules: 0,
      sha256: null,
      problems: [{ file: join(dir, "p.toml"), rule: "r1", field: "op", line: 4, message: 'no action "email.send_mail" in the manifests' }],
    });
  });

  it("usage errors use the envelope", async () => {
    const c = capture();
    expect(await main(["policy", "frobnicate", "--json"], c.io)).toBe(2);
    expect(JSON.parse(c.out()).error).toMatchObject({ class: "usage_error", message: 'unknown subcommand "frobnicate"; try: policy check | test | explain | list | forget' });
    const d = capture();
    expect(await main(["policy", "explain"], d.io)).toBe(2);
    expect(d.err()).toBe("countersign: usage_error: missing FILE: policy explain FILE\n");
    const e = capture();
    expect(await main(["policy", "check", "--bogus", "--json"], e.io)).toBe(2);
    expect(JSON.parse(e.out()).error).toMatchObject({ class: "usage_error" });
  });
});

describe("countersign policy test and explain (real analyzer)", () => {
  it("runs the shipped policy's tests", async () => {
    const c = capture();
    expect(await main(["policy", "test"], c.io)).toBe(0);
    expect(c.out()).toMatch(/^PASS policies\/tests\/default\.toml: reading a file runs without asking\n/);
    expect(c.out()).toMatch(/\n13 passed, 0 failed\n$/);
  });

  it("exits 1 and says why when a case fails", async () => {
    const dir = policyDir({
      "p.toml": 'default = "deny"\n',
      "tests/t.toml": `[[cases]]\nname = "read"\nexpect = "auto_approved"\nsource = '''\nimport { program } from "countersign";\nimport { readFile } from "trusted/fs";\nexport default program({ rationale: "r", async main() { await readFile({ path: "/a" }); } });\n'''\n`,
    });
    const c = capture();
    expect(await main(["policy", "test", dir, "--json"], c.io)).toBe(1);
    const report = JSON.parse(c.out());
    expect(report).toMatchObject({ ok: false, passed: 0, failed: 1 });
    expect(report.cases[0]).toMatchObject({ name: "read", pass: false, actual: "auto_rejected", why: expect.stringMatching(/the policy default is deny/) });
  });

  it("explains every matching rule of every effect", async () => {
    const c = capture();
    expect(await main(["policy", "explain", "examples/write-outside-sandbox.ts", "--json"], c.io)).toBe(0);
    const e = JSON.parse(c.out());
    expect(e.decision.kind).toBe("auto_rejected");
    expect(e.effects[0].rules).toEqual([
      { id: "fs.write-outside-sandbox", decision: "deny", op: "fs.write_file", holds: "yes", why: expect.stringMatching(/\/home\/me\/Sandbox/) },
      // The path is the program's own: the rule about paths from untrusted data does not apply.
      { id: "fs.untrusted-path-outside-sandbox", decision: "deny", op: "fs.write_file", holds: "no", why: expect.stringMatching(/comes from the program's own values/) },
    ]);
    expect(e.effects[0].sources).toEqual({ path: "the program's own values", content: "the program's own values" });
    expect(e.effects[0].influencedBy).toBe("nothing");
  });
});

describe("countersign check shows the policy decision", () => {
  it("ends the human output with the decision and one line per effect", async () => {
    const c = capture();
    expect(await main(["check", "examples/write-outside-sandbox.ts"], c.io)).toBe(0);
    expect(c.out()).toMatch(/\ndecision: auto_rejected\n {2}\d+:\d+ fs\.write_file: deny, rule "fs\.write-outside-sandbox" — .*\n$/);
  });

  it("--json adds the decision; --policies picks the policy", async () => {
    const dir = policyDir({ "p.toml": '[[rules]]\nid = "w"\ndecision = "allow"\nop = "fs.write_file"\n' });
    const c = capture();
    expect(await main(["check", "examples/write-outside-sandbox.ts", "--policies", dir, "--json"], c.io)).toBe(0);
    const { decision } = JSON.parse(c.out());
    expect(decision).toMatchObject({ kind: "auto_approved", effects: [{ op: "fs.write_file", rule: "w", verdict: "allow" }], guards: [] });
    expect(decision.grants[0]).toMatchObject({ op: "fs.write_file", count: { max: 1 } });
  });
});
