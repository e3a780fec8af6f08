import { describe, expect, it } from "vitest";
import { CountersignError } from "../../src/model/errors.js";
import type { Facts } from "../../src/model/facts.js";
import { runPolicyTests } from "../../src/app/run-policy-tests.js";
import { facts, HOME, list, mail, policyDir, shippedManifests, val } from "../policy/helpers.js";

const set = shippedManifests();
const policy = `default = "ask"\n[[rules]]\nid = "to-me"\ndecision = "allow"\nop = "email.send_email"\nwhen = { args = { to = { in = ["me@example.com"] } } }\n`;

/** Stands in for the analyzer: the program's text is the recipient. */
const analyze = (source: string): Facts => facts([mail(list(val(source.trim())))]);

describe("runPolicyTests", () => {
  it("runs every case and reports PASS/FAIL with why", async () => {
    const dir = policyDir({
      "p.toml": policy,
      "tests/a.toml": `
[[cases]]
name = "me"
source = "me@example.com"
expect = "auto_approved"
rule = "to-me"

[[cases]]
name = "bob, wrongly expected"
source = "bob@example.com"
expect = "auto_approved"

[[cases]]
name = "from a file"
program = "bob.txt"
expect = "ask"

[[cases]]
name = "right kind, wrong rule"
source = "me@example.com"
expect = "auto_approved"
rule = "other"
`,
      "tests/bob.txt": "bob@example.com\n",
    });
    const results = await runPolicyTests(dir, { manifests: set, home: HOME, analyze });
    expect(results.map((r) => [r.name, r.pass, r.actual])).toEqual([
      ["me", true, "auto_approved"],
      ["bob, wrongly expected", false, "ask"],
      ["from a file", true, "ask"],
      ["right kind, wrong rule", false, "auto_approved"],
    ]);
    expect(results[1]?.why).toMatch(/no rule covers it; the policy default is ask/);
    expect(results[3]?.expected).toBe('auto_approved by rule "other"');
  });

  it("a missing program file fails its case, not the run", async () => {
    const dir = policyDir({
      "p.toml": policy,
      "tests/a.toml": '[[cases]]\nname = "gone"\nprogram = "nope.ts"\nexpect = "ask"\n',
    });
    const [result] = await runPolicyTests(dir, { manifests: set, home: HOME, analyze });
    expect(result).toMatchObject({
      pass: false,
      actual: "error",
      why: expect.stringMatching(/nope\.ts does not exist$/),
    });
  });

  it("own_address is the test file's address, else the user's, else none", async () => {
    const mine = policy.replace('{ in = ["me@example.com"] }', "{ own_address = true }");
    const cases = '[[cases]]\nname = "me"\nsource = "me@example.com"\nexpect = "auto_approved"\n';
    const fixed = policyDir({ "p.toml": mine, "tests/a.toml": `address = "me@example.com"\n${cases}` });
    expect(
      (await runPolicyTests(fixed, { manifests: set, home: HOME, ownAddresses: ["other@example.com"], analyze }))[0]
        ?.pass,
    ).toBe(true);
    const users = policyDir({ "p.toml": mine, "tests/a.toml": cases });
    expect(
      (await runPolicyTests(users, { manifests: set, home: HOME, ownAddresses: ["me@example.com"], analyze }))[0]?.pass,
    ).toBe(true);
    expect((await runPolicyTests(users, { manifests: set, home: HOME, analyze }))[0]).toMatchObject({
      pass: false,
      actual: "ask",
    });
    const bad = policyDir({ "p.toml": mine, "tests/a.toml": `address = "not an address"\n${cases}` });
    await expect(runPolicyTests(bad, { manifests: set, home: HOME, analyze })).rejects.toThrow(
      /address: must be one email address/,
    );
  });

  it("rejects malformed test files and folders without tests", async () => {
    const bad = policyDir({
      "p.toml": policy,
      "tests/a.toml": '[[cases]]\nname = "x"\nexpect = "maybe"\nsource = "s"\n',
    });
    await expect(runPolicyTests(bad, { manifests: set, home: HOME, analyze })).rejects.toThrow(
      /a\.toml:3: cases\.0\.expect: /,
    );
    const both = policyDir({
      "p.toml": policy,
      "tests/a.toml": '[[cases]]\nname = "x"\nexpect = "ask"\nsource = "s"\nprogram = "p.ts"\n',
    });
    await expect(runPolicyTests(both, { manifests: set, home: HOME, analyze })).rejects.toThrow(
      /give exactly one of program and source/,
    );
    const none = policyDir({ "p.toml": policy });
    await expect(runPolicyTests(none, { manifests: set, home: HOME, analyze })).rejects.toBeInstanceOf(
      CountersignError,
    );
  });
});
