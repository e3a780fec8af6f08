import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Io } from "../../src/cli/command.js";
import { main } from "../../src/cli/main.js";
import { packageRoot } from "../../src/model/paths.js";
import { policyDir } from "../policy/helpers.js";

function capture(env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = { stdout: (t) => out.push(t), stderr: (t) => err.push(t), readStdin: async () => "", env: { HOME: "/home/me", ...env }, cwd: packageRoot };
  return { io, out: () => out.join(""), err: () => err.join("") };
}

describe("countersign policy check", () => {
  it("accepts the shipped policy", async () => {
    const c = capture();
    expect(await main(["policy", "check", "policies"], c.io)).toBe(0);
    expect(c.out()).toMatch(/^policy ok: 8 rules in policies, default ask, sha256 [0-9a-f]{64}\n$/);
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
    expect(JSON.parse(c.out()).error).toMatchObject({ class: "usage_error", message: 'unknown subcommand "frobnicate"; try: policy check | test | explain' });
    const d = capture();
    expect(await main(["policy", "explain"], d.io)).toBe(2);
    expect(d.err()).toBe("countersign: usage_error: missing FILE: policy explain FILE\n");
  });
});
