import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Io } from "../../src/cli/command.js";
import { main } from "../../src/cli/main.js";
import { packageRoot } from "../../src/model/paths.js";
import { policyDir } from "../policy/helpers.js";
import { forwardDraft, FROM_THE_DRAFT, IF_URGENT } from "../support/forward-draft.js";
import { isolatedEnv } from "../support/isolated-env.js";

function capture(env: NodeJS.ProcessEnv = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    readStdin: async () => "",
    env: isolatedEnv({ HOME: "/home/me", ...env }),
    cwd: packageRoot,
  };
  return { io, out: () => out.join(""), err: () => err.join("") };
}

describe("countersign policy check", () => {
  it("accepts the shipped policy", async () => {
    const c = capture();
    expect(await main(["policy", "check", "policies"], c.io)).toBe(0);
    expect(c.out()).toMatch(/^policy ok: 24 rules in policies, default ask, sha256 [0-9a-f]{64}\n$/);
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
      problems: [
        {
          file: join(dir, "p.toml"),
          rule: "r1",
          field: "op",
          line: 4,
          message: 'no action "email.send_mail" in the manifests',
        },
      ],
    });
  });

  it("usage errors use the envelope", async () => {
    const c = capture();
    expect(await main(["policy", "frobnicate", "--json"], c.io)).toBe(2);
    expect(JSON.parse(c.out()).error).toMatchObject({
      class: "usage_error",
      message: 'unknown subcommand "frobnicate"; try: policy check | test | explain | list | forget | simulate',
    });
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
    expect(c.out()).toMatch(/\n35 passed, 0 failed\n$/);
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
    expect(report.cases[0]).toMatchObject({
      name: "read",
      pass: false,
      actual: "auto_rejected",
      why: expect.stringMatching(/the policy default is deny/),
    });
  });

  it("explains every matching rule of every effect", async () => {
    const c = capture();
    expect(await main(["policy", "explain", "examples/write-outside-sandbox.ts", "--json"], c.io)).toBe(0);
    const e = JSON.parse(c.out());
    expect(e.decision.kind).toBe("auto_rejected");
    expect(e.effects[0].rules).toEqual([
      {
        id: "fs.write-outside-sandbox",
        decision: "deny",
        op: "fs.write_file",
        holds: "yes",
        why: expect.stringMatching(/\/home\/me\/Sandbox/),
      },
      // The path is the program's own: the rule about paths from untrusted data does not apply.
      {
        id: "fs.untrusted-path-outside-sandbox",
        decision: "deny",
        op: "fs.write_file",
        holds: "no",
        why: expect.stringMatching(/comes from the program's own values/),
      },
      // Nor does the one about paths that untrusted data steered: nothing steers this one.
      {
        id: "fs.influenced-path-outside-sandbox",
        decision: "deny",
        op: "fs.write_file",
        holds: "no",
        why: expect.stringMatching(/influenced by nothing/),
      },
      // The allow rule for writes in the sandbox does not hold outside it; the ask rule about steered writes has nothing to catch.
      {
        id: "fs.write-in-sandbox",
        decision: "allow",
        op: "fs.write_file",
        holds: "no",
        why: expect.stringMatching(/is under \/home\/me\/Sandbox/),
      },
      {
        id: "fs.influenced-write",
        decision: "ask",
        op: "fs.write_file",
        holds: "no",
        why: expect.stringMatching(/influenced by nothing/),
      },
    ]);
    expect(e.effects[0].sources).toEqual({ path: "the program's own values", content: "the program's own values" });
    expect(e.effects[0].influencedBy).toBe("nothing");
  });
});

describe("countersign policy explain shows where each argument comes from (issue 15)", () => {
  const programFile = (source: string): string => {
    const dir = mkdtempSync(join(tmpdir(), "countersign-explain-"));
    writeFileSync(join(dir, "forward.ts"), source);
    return join(dir, "forward.ts");
  };

  it("a forwarded draft's recipients come from the draft, untrusted; and the draft steers whether mail goes out", async () => {
    const file = programFile(forwardDraft("r-1", IF_URGENT));
    const c = capture();
    expect(await main(["policy", "explain", file], c.io)).toBe(0);
    const lines = c.out().split("\n");
    const forward = lines.indexOf("10:11 email.send_email, 1 call(s)");
    expect(lines.slice(forward + 1, forward + 5)).toEqual([
      `  to: a list of 0 or more items, each any string (from the result of email.get_draft, field $.body — untrusted); comes from ${FROM_THE_DRAFT}`,
      `  subject: "Fwd"; comes from the program's own values`,
      `  body: any string (from the result of email.get_draft, field $.body — untrusted); comes from ${FROM_THE_DRAFT}`,
      `  steered by data: whether it runs, how often and with which values may depend on ${FROM_THE_DRAFT}`,
    ]);
    expect(lines[forward + 7]).toMatch(/^ {2}maybe ask rule "email\.influenced-send"/);
    expect(lines[forward + 8]).toMatch(/^ {2}=> ask by rule "email\.untrusted-recipients"/);
    const urgent = lines.findIndex((l) => /^11:\d+ email\.send_email, 0\.\.1 call\(s\)$/.test(l));
    expect(lines[urgent + 4]).toBe(
      `  steered by data: whether it runs, how often and with which values may depend on ${FROM_THE_DRAFT}`,
    );
    const d = capture();
    expect(await main(["policy", "explain", file, "--json"], d.io)).toBe(0);
    const e = JSON.parse(d.out());
    expect(e.effects.map((x: { sources: Record<string, string> }) => x.sources.to)).toEqual([
      undefined,
      FROM_THE_DRAFT,
      "the program's own values",
    ]);
    expect(e.effects[0].influencedBy).toBe("nothing");
  });

  it("agent text in a value or a source is made visible, never passed to the terminal", async () => {
    const c = capture();
    expect(await main(["policy", "explain", programFile(forwardDraft("r-1\u202Egpj.exe\u009b2J"))], c.io)).toBe(0);
    expect(c.out()).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(c.out()).toContain(
      'comes from the result of email.get_draft (id = "r-1⟨U+202E⟩gpj.exe⟨U+009B⟩2J"), field $.body — untrusted',
    );
  });
});

describe("countersign check shows the policy decision", () => {
  it("ends the human output with the decision and one line per effect", async () => {
    const c = capture();
    expect(await main(["check", "examples/write-outside-sandbox.ts"], c.io)).toBe(0);
    expect(c.out()).toMatch(
      /\ndecision: auto_rejected\n {2}\d+:\d+ fs\.write_file: deny, rule "fs\.write-outside-sandbox" — .*\n$/,
    );
  });

  it("--json adds the decision; --policies picks the policy", async () => {
    const dir = policyDir({ "p.toml": '[[rules]]\nid = "w"\ndecision = "allow"\nop = "fs.write_file"\n' });
    const c = capture();
    expect(await main(["check", "examples/write-outside-sandbox.ts", "--policies", dir, "--json"], c.io)).toBe(0);
    const { decision } = JSON.parse(c.out());
    expect(decision).toMatchObject({
      kind: "auto_approved",
      effects: [{ op: "fs.write_file", rule: "w", verdict: "allow" }],
      guards: [],
    });
    expect(decision.grants[0]).toMatchObject({ op: "fs.write_file", count: { max: 1 } });
  });
});
