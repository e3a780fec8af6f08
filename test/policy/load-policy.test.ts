import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CountersignError } from "../../src/model/errors.js";
import { packageRoot } from "../../src/model/paths.js";
import { checkPolicy, loadPolicy } from "../../src/config/index.js";
import { decide } from "../../src/policy/decide.js";
import { effect, facts, HOME, policyDir, shippedManifests, val } from "./helpers.js";

const set = shippedManifests();
const rule = (body: string) => `default = "ask"\n\n[[rules]]\n${body}\n`;

/** The one problem a bad policy has, as loadPolicy reports it. */
function problemOf(files: Record<string, string>) {
  const dir = policyDir(files);
  let thrown: unknown;
  try {
    loadPolicy(dir, { manifests: set, home: HOME });
  } catch (err) {
    thrown = err;
  }
  expect(thrown).toBeInstanceOf(CountersignError);
  const err = thrown as CountersignError;
  expect(err.class).toBe("config_error");
  expect(err.boundary).toBe("policy");
  const { problems, ...first } = err.details as { problems: unknown[]; file: string };
  expect(problems).toHaveLength(1);
  return { ...first, file: first.file.slice(dir.length + 1), message: err.message.slice(dir.length + 1) };
}

describe("malformed policies: each a clear error naming file, rule, field and line", () => {
  it("invalid TOML", () => {
    expect(problemOf({ "p.toml": 'default = "ask"\n[[rules]\nid = "x"\n' })).toMatchObject({ file: "p.toml", line: 2 });
  });

  it("unknown top-level key", () => {
    expect(problemOf({ "p.toml": 'default = "ask"\ndefualt = "deny"\n' })).toEqual({
      file: "p.toml",
      field: "defualt",
      line: 2,
      message: "p.toml:2: defualt: unknown key",
    });
  });

  it("unknown key in a rule", () => {
    expect(problemOf({ "p.toml": rule('id = "r1"\ndecision = "allow"\nop = "fs.read_file"\ncondition = {}') })).toEqual(
      {
        file: "p.toml",
        rule: "r1",
        field: "condition",
        line: 7,
        message: 'p.toml:7: rule "r1": condition: unknown key',
      },
    );
  });

  it("unknown key in when", () => {
    expect(
      problemOf({ "p.toml": rule('id = "r1"\ndecision = "allow"\nop = "email.send_email"\nwhen = { countt = 1 }') }),
    ).toMatchObject({
      rule: "r1",
      field: "when.countt",
      line: 7,
    });
  });

  it("decision outside deny | ask | allow", () => {
    const p = problemOf({ "p.toml": rule('id = "r1"\ndecision = "permit"\nop = "fs.read_file"') });
    expect(p).toMatchObject({ rule: "r1", field: "decision", line: 5 });
    expect(p.message).toMatch(/"deny"\|"ask"\|"allow"/);
  });

  it("default outside ask | deny", () => {
    expect(problemOf({ "p.toml": 'default = "allow"\n' })).toMatchObject({ field: "default", line: 1 });
  });

  it("missing id names the rule by position", () => {
    expect(problemOf({ "p.toml": rule('decision = "allow"\nop = "fs.read_file"') })).toMatchObject({
      rule: "#1",
      field: "id",
      line: 3,
    });
  });

  it("missing op", () => {
    expect(problemOf({ "p.toml": rule('id = "r1"\ndecision = "allow"') })).toMatchObject({
      rule: "r1",
      field: "op",
      line: 3,
    });
  });

  it("malformed op pattern", () => {
    const p = problemOf({ "p.toml": rule('id = "r1"\ndecision = "allow"\nop = "Email send"') });
    expect(p).toMatchObject({ rule: "r1", field: "op", line: 6 });
    expect(p.message).toMatch(/<connector>\.<action>/);
  });

  it("deny without a reason", () => {
    expect(problemOf({ "p.toml": rule('id = "r1"\ndecision = "deny"\nop = "fs.write_file"') })).toMatchObject({
      rule: "r1",
      field: "reason",
      message: expect.stringMatching(/a deny rule needs a reason/),
    });
  });

  it("count in a deny rule", () => {
    expect(
      problemOf({
        "p.toml": rule(
          'id = "r1"\ndecision = "deny"\nop = "email.send_email"\nreason = "x"\nwhen = { count = { max = 3 } }',
        ),
      }),
    ).toMatchObject({
      rule: "r1",
      field: "when.count",
      line: 8,
      message: expect.stringMatching(/not allowed in a deny rule/),
    });
  });

  it("a constraint with an unknown key", () => {
    expect(
      problemOf({
        "p.toml": rule(
          'id = "r1"\ndecision = "allow"\nop = "fs.read_file"\nwhen = { args = { path = { undr = "/x" } } }',
        ),
      }),
    ).toMatchObject({
      rule: "r1",
      field: "when.args.path",
      line: 7,
      message: expect.stringMatching(/exactly one of eq, in, not_in, under/),
    });
  });

  it("a constraint with two keys", () => {
    expect(
      problemOf({
        "p.toml": rule(
          'id = "r1"\ndecision = "allow"\nop = "fs.read_file"\n[rules.when.args.path]\nunder = "/a"\nglob = "*"',
        ),
      }),
    ).toMatchObject({ rule: "r1", field: "when.args.path", line: 7, message: expect.stringMatching(/exactly one of/) });
  });

  it("a relative under (nested in not)", () => {
    expect(
      problemOf({
        "p.toml": rule(
          'id = "r1"\ndecision = "deny"\nreason = "x"\nop = "fs.write_file"\nwhen = { args = { path = { not = { under = "Sandbox" } } } }',
        ),
      }),
    ).toMatchObject({
      rule: "r1",
      field: "when.args.path.not.under",
      line: 8,
      message: expect.stringMatching(/must be an absolute path/),
    });
  });

  it("an empty host_in list", () => {
    expect(
      problemOf({
        "p.toml": rule('id = "r1"\ndecision = "allow"\nop = "http.get"\nwhen = { args = { url = { host_in = [] } } }'),
      }),
    ).toMatchObject({ rule: "r1", field: "when.args.url.host_in", line: 7 });
  });

  it("an empty prefix, an empty or unknown type", () => {
    expect(
      problemOf({
        "p.toml": rule('id = "r1"\ndecision = "allow"\nop = "http.get"\nwhen = { args = { url = { prefix = "" } } }'),
      }),
    ).toMatchObject({ rule: "r1", field: "when.args.url.prefix", line: 7 });
    expect(
      problemOf({
        "p.toml": rule('id = "r1"\ndecision = "allow"\nop = "http.get"\nwhen = { args = { url = { type = [] } } }'),
      }),
    ).toMatchObject({ rule: "r1", field: "when.args.url.type", line: 7 });
    expect(
      problemOf({
        "p.toml": rule(
          'id = "r1"\ndecision = "allow"\nop = "http.get"\nwhen = { args = { url = { type = ["integer"] } } }',
        ),
      }),
    ).toMatchObject({ rule: "r1", field: "when.args.url.type.0", line: 7 });
  });

  it("a negative count", () => {
    expect(
      problemOf({
        "p.toml": rule('id = "r1"\ndecision = "allow"\nop = "email.send_email"\nwhen = { count = { max = -1 } }'),
      }),
    ).toMatchObject({ rule: "r1", field: "when.count.max", line: 7 });
  });

  it("a date value", () => {
    expect(
      problemOf({
        "p.toml": rule(
          'id = "r1"\ndecision = "allow"\nop = "fs.read_file"\nwhen = { args = { path = { eq = 2024-01-01 } } }',
        ),
      }),
    ).toMatchObject({
      rule: "r1",
      field: "when.args.path.eq",
      message: expect.stringMatching(/dates are not allowed/),
    });
  });

  it("a rule id used twice across files", () => {
    const p = problemOf({
      "a.toml": rule('id = "r1"\ndecision = "allow"\nop = "fs.read_file"'),
      "b.toml": '[[rules]]\nid = "r1"\ndecision = "allow"\nop = "fs.list_dir"\n',
    });
    expect(p).toMatchObject({ file: "b.toml", rule: "r1", field: "id", line: 2 });
    expect(p.message).toMatch(/already used in .*a\.toml/);
  });

  it("default set in two files", () => {
    const p = problemOf({ "a.toml": 'default = "ask"\n', "b.toml": '\ndefault = "deny"\n' });
    expect(p).toMatchObject({ file: "b.toml", field: "default", line: 2 });
    expect(p.message).toMatch(/already set in .*a\.toml/);
  });

  it("an exact op that names no action", () => {
    expect(problemOf({ "p.toml": rule('id = "r1"\ndecision = "allow"\nop = "email.send_mail"') })).toMatchObject({
      rule: "r1",
      field: "op",
      line: 6,
      message: expect.stringMatching(/no action "email.send_mail" in the manifests/),
    });
  });

  it("a glob that matches no action", () => {
    expect(problemOf({ "p.toml": rule('id = "r1"\ndecision = "allow"\nop = "emial.*"') })).toMatchObject({
      field: "op",
      message: expect.stringMatching(/"emial\.\*" matches no action/),
    });
  });

  it("an argument that is not an input of the op", () => {
    expect(
      problemOf({
        "p.toml": rule(
          'id = "r1"\ndecision = "allow"\nop = "email.send_email"\nwhen = { args = { too = { in = ["a@b.c"] } } }',
        ),
      }),
    ).toMatchObject({
      rule: "r1",
      field: "when.args.too",
      line: 7,
      message: expect.stringMatching(
        /"too" is not an input of email.send_email \(inputs of email.send_email: body, subject, to\)/,
      ),
    });
  });

  it("distinct on an input the op lacks", () => {
    expect(
      problemOf({
        "p.toml": rule('id = "r1"\ndecision = "allow"\nop = "email.send_*"\nwhen = { distinct = "recipient" }'),
      }),
    ).toMatchObject({
      rule: "r1",
      field: "when.distinct",
      message: expect.stringMatching(/"recipient" is not an input/),
    });
  });

  it("an empty folder and a missing folder", () => {
    const empty = mkdtempSync(join(tmpdir(), "countersign-policy-"));
    expect(checkPolicy(empty, { home: HOME }).problems).toEqual([
      { file: empty, message: "no policy files (*.toml) in the directory" },
    ]);
    const missing = join(empty, "nope");
    expect(checkPolicy(missing, { home: HOME }).problems[0]?.message).toMatch(/^cannot read the policy directory/);
    expect(() => loadPolicy(missing, { home: HOME })).toThrow(CountersignError);
  });

  it("checkPolicy reports every problem at once, and no policy", () => {
    const { policy, problems } = checkPolicy(
      policyDir({
        "a.toml": rule('id = "r1"\ndecision = "deny"\nop = "fs.write_file"'),
        "b.toml": 'default = "nope"\n',
      }),
      { home: HOME },
    );
    expect(policy).toBeUndefined();
    expect(problems.map((p) => p.field)).toEqual(["reason", "default"]);
  });
});

describe("loading", () => {
  it("expands ~ in under against the given home, in every constraint position", () => {
    const policy = loadPolicy(
      policyDir({
        "p.toml": rule(
          'id = "r1"\ndecision = "deny"\nreason = "x"\nop = "fs.write_file"\nwhen = { args = { path = { not = { any = [{ under = "~/Sandbox" }, { under = "~" }] } } } }',
        ),
      }),
      { home: HOME },
    );
    expect(policy.rules[0]?.when?.args?.path).toEqual({
      not: { any: [{ under: "/home/me/Sandbox" }, { under: "/home/me" }] },
    });
  });

  it("leaves a ~ inside values alone", () => {
    const policy = loadPolicy(
      policyDir({
        "p.toml": rule(
          'id = "r1"\ndecision = "allow"\nop = "fs.read_file"\nwhen = { args = { path = { eq = "~/x" } } }',
        ),
      }),
      { home: HOME },
    );
    expect(policy.rules[0]?.when?.args?.path).toEqual({ eq: "~/x" });
  });

  it("reads rules from every file, in file order; default ask when no file sets it", () => {
    const policy = loadPolicy(
      policyDir({
        "b.toml": '[[rules]]\nid = "b1"\ndecision = "allow"\nop = "fs.list_dir"\n',
        "a.toml": '[[rules]]\nid = "a1"\ndecision = "allow"\nop = "fs.read_file"\n',
        "tests/t.toml": "not a policy = [",
      }),
      { manifests: set, home: HOME },
    );
    expect(policy.default).toBe("ask");
    expect(policy.rules.map((r) => [r.id, r.file.endsWith(r.id[0] + ".toml")])).toEqual([
      ["a1", true],
      ["b1", true],
    ]);
  });

  it("hashes the parsed content: comments, spacing and key order do not count; content, names and home do", () => {
    const a = 'default = "ask"\n[[rules]]\nid = "r1"\ndecision = "allow"\nop = "fs.read_file"\n';
    const b = '# a comment\ndefault="ask"\n\n[[rules]]\nop = "fs.read_file"   # read\ndecision = "allow"\nid = "r1"\n';
    const hash = (files: Record<string, string>, home = HOME) => loadPolicy(policyDir(files), { home }).sha256;
    expect(hash({ "p.toml": a })).toMatch(/^[0-9a-f]{64}$/);
    expect(hash({ "p.toml": a })).toBe(hash({ "p.toml": b }));
    expect(hash({ "p.toml": a })).not.toBe(hash({ "p.toml": a.replace("fs.read_file", "fs.list_dir") }));
    expect(hash({ "p.toml": a })).not.toBe(hash({ "q.toml": a }));
    const tilde = rule(
      'id = "r1"\ndecision = "allow"\nop = "fs.read_file"\nwhen = { args = { path = { under = "~/x" } } }',
    );
    expect(hash({ "p.toml": tilde })).not.toBe(hash({ "p.toml": tilde }, "/home/other"));
  });

  it("the shipped policy loads against the shipped manifests", () => {
    const policy = loadPolicy(join(packageRoot, "policies"), { manifests: set, home: HOME });
    expect(policy.default).toBe("ask");
    expect(policy.rules.find((r) => r.id === "fs.write-outside-sandbox")?.when?.args?.path).toEqual({
      not: { under: "/home/me/Sandbox" },
    });
  });
});

describe("own_address: the user's own addresses, resolved when the policy is loaded", () => {
  const mailRule = (c: string) =>
    rule(`id = "mine"\ndecision = "allow"\nop = "email.send_email"\nwhen = { args = { to = ${c} } }`);
  const load = (c: string, ownAddresses?: string[]) =>
    loadPolicy(policyDir({ "p.toml": mailRule(c) }), {
      manifests: set,
      home: HOME,
      ...(ownAddresses === undefined ? {} : { ownAddresses }),
    });
  const toOf = (p: ReturnType<typeof load>) => p.rules[0]?.when?.args?.to;
  const mailTo = (...to: string[]) =>
    facts([
      effect("email.send_email", {
        to: { kind: "array", element: val(...to), length: { min: to.length, max: to.length } },
        subject: val("s"),
        body: val("b"),
      }),
    ]);

  it("becomes an ordinary in over the address, also inside not, all and any", () => {
    expect(toOf(load("{ own_address = true }", ["me@example.com"]))).toEqual({ in: ["me@example.com"] });
    expect(toOf(load("{ not = { own_address = true } }", ["me@example.com"]))).toEqual({
      not: { in: ["me@example.com"] },
    });
    expect(toOf(load('{ any = [{ own_address = true }, { eq = "bob@example.com" }] }', ["me@example.com"]))).toEqual({
      any: [{ in: ["me@example.com"] }, { eq: "bob@example.com" }],
    });
  });

  it("matches nothing when no address is configured", () => {
    const policy = load("{ own_address = true }");
    expect(toOf(policy)).toEqual({ in: [] });
    expect(decide(mailTo("me@example.com"), policy, set).kind).toBe("ask");
  });

  it("lets mail to exactly the address through, and no +tag, longer domain or added recipient", () => {
    const policy = load("{ own_address = true }", ["me@example.com"]);
    expect(decide(mailTo("me@example.com"), policy, set).kind).toBe("auto_approved");
    expect(decide(mailTo("me+x@example.com"), policy, set).kind).toBe("ask");
    expect(decide(mailTo("me@example.com", "attacker@evil.example"), policy, set).kind).toBe("ask");
    expect(decide(mailTo("me@example.com.evil.example"), policy, set).kind).toBe("ask");
  });

  it("is covered by the policy hash: another address is another policy", () => {
    expect(load("{ own_address = true }", ["me@example.com"]).sha256).not.toBe(
      load("{ own_address = true }", ["other@example.com"]).sha256,
    );
  });

  it.each(["false", '"me@example.com"', "1"])("own_address = %s is a clear error", (value) => {
    expect(problemOf({ "p.toml": mailRule(`{ own_address = ${value} }`) }).message).toContain(
      "own_address takes only true",
    );
  });
});
