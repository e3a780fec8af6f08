import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Io } from "../../src/cli/command.js";
import { main } from "../../src/cli/main.js";
import { checkManifests, checkPolicy } from "../../src/config/index.js";
import { MAX_TOML_DEPTH } from "../../src/model/toml-lines.js";
import { copyWithFakeWasm } from "../manifest/fixture.js";
import { HOME, policyDir, shippedManifests } from "../policy/helpers.js";
import { isolatedEnv } from "../support/isolated-env.js";

const manifests = shippedManifests();
const RULE = '[[rules]]\nid = "ok"\ndecision = "allow"\nop = "fs.read_file"\n';

async function cli(argv: string[], cwd = "/"): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = {
    stdout: (t) => void out.push(t),
    stderr: (t) => void err.push(t),
    readStdin: async () => "",
    env: isolatedEnv(),
    cwd,
  };
  const code = await main(argv, io);
  return { code, stdout: out.join(""), stderr: err.join("") };
}

/** Entries no check may stall or crash on: a directory named x.toml, a broken link, a FIFO, bytes that are not UTF-8. */
function addUnreadable(dir: string): void {
  mkdirSync(join(dir, "x.toml"));
  symlinkSync(join(dir, "gone"), join(dir, "broken.toml"));
  execFileSync("mkfifo", [join(dir, "fifo.toml")]);
  writeFileSync(join(dir, "latin1.toml"), Buffer.from([0x23, 0x20, 0xe9, 0x0a]));
}

describe("policy check on entries that cannot be read", () => {
  it("names each one, checks the readable files as well, and never waits on the FIFO", () => {
    const dir = policyDir({ "a.toml": RULE + 'reason = ""\n' });
    addUnreadable(dir);
    const { policy, problems } = checkPolicy(dir, { manifests, home: HOME });
    expect(policy).toBeUndefined();
    expect(problems.map((p) => [p.file.slice(dir.length + 1), p.message])).toEqual([
      ["broken.toml", "is a broken symbolic link (its target does not exist)"],
      ["fifo.toml", "is not a regular file"],
      ["latin1.toml", "is not valid UTF-8 text"],
      ["x.toml", "is a directory, not a file"],
      ["a.toml", "Too small: expected string to have >=1 characters"],
    ]);
  });

  it("exits 2 from the CLI with one file: message line each, never internal_error", async () => {
    const dir = policyDir({ "a.toml": RULE });
    addUnreadable(dir);
    const r = await cli(["policy", "check", "."], dir);
    expect(r.code).toBe(2);
    expect(r.stdout).not.toMatch(/internal_error/);
    expect(r.stdout.split("\n").filter(Boolean)).toEqual([
      `broken.toml: is a broken symbolic link (its target does not exist)`,
      `fifo.toml: is not a regular file`,
      `latin1.toml: is not valid UTF-8 text`,
      `x.toml: is a directory, not a file`,
    ]);
  });
});

describe("deep nesting", () => {
  const deepValue = (n: number) => `x = ${"[".repeat(n)}${"]".repeat(n)}\n`;
  const deepConstraint = (n: number) =>
    `${RULE}when = { args = { path = ${"{ not = ".repeat(n)}{ eq = "a" }${" }".repeat(n)} } }\n`;
  const deepKey = (n: number) => `${Array.from({ length: n }, (_, i) => `k${i}`).join(".")} = 1\n`;

  it.each([
    ["an array nested 100,000 deep", deepValue(100_000), 3],
    ["a constraint nested 10,000 deep", deepConstraint(10_000), 7],
    ["a dotted key of 10,000 segments", deepKey(10_000), 3],
  ])("%s is refused at its line in a policy", (_, text, line) => {
    const dir = policyDir({ "p.toml": `default = "ask"\n\n${text}` });
    expect(checkPolicy(dir, { home: HOME }).problems).toEqual([
      { file: join(dir, "p.toml"), line, message: `nested more than ${MAX_TOML_DEPTH} levels deep` },
    ]);
  });

  it("is refused at its line in a manifest", () => {
    const dir = copyWithFakeWasm();
    writeFileSync(join(dir, "fs", "deep.toml"), `name = "deep"\n${deepValue(50_000)}`);
    expect(checkManifests(dir).errors).toEqual([
      { file: "fs/deep.toml", field: "", line: 2, message: `nested more than ${MAX_TOML_DEPTH} levels deep` },
    ]);
  });

  it("within the limit is an ordinary policy", () => {
    const dir = policyDir({ "p.toml": deepConstraint(20).replace('id = "ok"', 'id = "deep"') });
    expect(checkPolicy(dir, { manifests, home: HOME }).problems).toEqual([]);
  });
});

describe("manifests check on entries that cannot be read", () => {
  it("names each one inside a connector directory and at the top", () => {
    const dir = copyWithFakeWasm();
    addUnreadable(join(dir, "fs"));
    symlinkSync(join(dir, "nowhere"), join(dir, "ghost"));
    const { set, errors } = checkManifests(dir);
    expect(set).toBeUndefined();
    expect(errors.map((e) => `${e.file}: ${e.message}`)).toEqual([
      "fs/broken.toml: is a broken symbolic link (its target does not exist)",
      "fs/fifo.toml: is not a regular file",
      "fs/latin1.toml: is not valid UTF-8 text",
      "fs/x.toml: is a directory, not a file",
      "ghost: is a broken symbolic link (its target does not exist)",
    ]);
  });

  it("an empty folder of the user's own says it replaced the shipped manifests", async () => {
    const env = isolatedEnv();
    mkdirSync(join(env.COUNTERSIGN_HOME!, "manifests"));
    const out: string[] = [];
    const io: Io = {
      stdout: (t) => void out.push(t),
      stderr: () => undefined,
      readStdin: async () => "",
      env,
      cwd: "/",
    };
    expect(await main(["manifests", "check"], io)).toBe(2);
    expect(out.join("")).toMatch(
      /manifests: holds no manifests; because it exists it replaces the shipped manifests \(.*\): copy those into it, or remove it\n$/,
    );
    const given = await cli(["manifests", "check", join(env.COUNTERSIGN_HOME!, "manifests")]);
    expect(given.stdout).toMatch(
      /holds no manifests: expected <connector>\/connector.toml and <connector>\/<action>.toml\n$/,
    );
  });
});

describe("10,000 problems in one file", () => {
  it("policy check reports every one, each at its own line", () => {
    const rules = Array.from(
      { length: 10_000 },
      (_, i) => `[[rules]]\nid = "r${i}"\ndecision = "deny"\nop = "email.send_email"\n`,
    );
    const dir = policyDir({ "p.toml": rules.join("\n") });
    const { problems } = checkPolicy(dir, { manifests, home: HOME });
    expect(problems).toHaveLength(10_000);
    expect(problems[9_999]).toMatchObject({ rule: "r9999", field: "reason", line: 9_999 * 5 + 1 });
    expect(new Set(problems.map((p) => p.line)).size).toBe(10_000);
  });

  it("manifests check reports every one, each at its own line", () => {
    const dir = copyWithFakeWasm();
    const inputs = Array.from(
      { length: 10_000 },
      () => '[[inputs]]\nname = "same"\ntype = "string"\ndescription = "d"\n',
    );
    writeFileSync(
      join(dir, "fs", "many.toml"),
      `name = "many"\nversion = "1.0.0"\ndescription = "d"\nidempotent = true\n\n[[execute]]\nid = "s"\nconnector = "fs"\nop = "read_file"\n\n${inputs.join("\n")}`,
    );
    const errors = checkManifests(dir).errors;
    expect(errors).toHaveLength(9_999);
    expect(errors[0]).toEqual({
      file: "fs/many.toml",
      field: "inputs[1].name",
      line: 17,
      message: 'duplicate input "same" (also inputs[0])',
    });
    expect(new Set(errors.map((e) => e.line)).size).toBe(9_999);
  });
});

describe("helpful messages", () => {
  it.each([
    ["count", "count = { max = 3 }", "unknown key: count belongs inside when, e.g. when = { count = { max = 3 } }"],
    ["distinct", 'distinct = "path"', 'unknown key: distinct belongs inside when, e.g. when = { distinct = "to" }'],
    [
      "args",
      "args = { path = { eq = 1 } }",
      "unknown key: args belongs inside when, e.g. when = { args = { to = { in = [...] } } }",
    ],
  ])("%s beside when says where it belongs", (key, line, message) => {
    const dir = policyDir({ "p.toml": RULE + line + "\n" });
    expect(checkPolicy(dir, { manifests, home: HOME }).problems).toEqual([
      { file: join(dir, "p.toml"), rule: "ok", field: key, line: 5, message },
    ]);
  });

  it("host_in with a scheme or a path is refused: host names only", () => {
    const dir = policyDir({
      "p.toml":
        '[[rules]]\nid = "h"\ndecision = "allow"\nop = "http.get"\nwhen = { args = { url = { host_in = ["api.x.com", "https://api.x.com/v1"] } } }\n',
    });
    expect(checkPolicy(dir, { manifests, home: HOME }).problems).toEqual([
      {
        file: join(dir, "p.toml"),
        rule: "h",
        field: "when.args.url.host_in.1",
        line: 5,
        message:
          '"https://api.x.com/v1" is not a host: host_in takes host names only (optionally with :port), no scheme or path',
      },
    ]);
  });

  it("every problem of every rule in one pass, manifest checks included for the valid rules", () => {
    const dir = policyDir({
      "a.toml":
        '[[rules]]\nid = "bad"\ndecision = "deny"\nop = "email.send_email"\ncount = { max = 1 }\n\n[[rules]]\nid = "typo"\ndecision = "allow"\nop = "email.send_mail"\n',
      "b.toml":
        '[[rules]]\nid = "typo2"\ndecision = "allow"\nop = "fs.read_file"\nwhen = { args = { pth = { eq = "/x" } } }\n',
    });
    expect(
      checkPolicy(dir, { manifests, home: HOME }).problems.map(
        (p) => `${p.file.slice(dir.length + 1)}:${p.line} ${p.rule} ${p.field}`,
      ),
    ).toEqual(["a.toml:5 bad count", "a.toml:1 bad reason", "a.toml:10 typo op", "b.toml:5 typo2 when.args.pth"]);
  });
});
