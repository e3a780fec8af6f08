import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import type { Io } from "../../src/cli/command.js";
import { main } from "../../src/cli/main.js";
import { generateApi } from "../../src/manifest/generate-api.js";
import { loadManifests } from "../../src/config/index.js";
import { isolatedEnv } from "../support/isolated-env.js";
import { copyWithFakeWasm } from "./fixture.js";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function run(argv: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = {
    stdout: (text) => void out.push(text),
    stderr: (text) => void err.push(text),
    readStdin: async () => "",
    env: isolatedEnv(options.env),
    cwd: options.cwd ?? mkdtempSync(join(tmpdir(), "countersign-cwd-")),
  };
  const code = await main(argv, io);
  return { code, stdout: out.join(""), stderr: err.join("") };
}

function broken(): string {
  const dir = copyWithFakeWasm();
  const file = join(dir, "email", "send_draft.toml");
  writeFileSync(file, readFileSync(file, "utf8").replace('op = "get_draft"', 'op = "get_drafts"'));
  const post = join(dir, "http", "post.toml");
  writeFileSync(post, readFileSync(post, "utf8").replace('name = "post"', 'name = "put"'));
  return dir;
}

describe("countersign manifests check", () => {
  it("prints a one-line summary and exits 0 for a valid directory", async () => {
    const dir = copyWithFakeWasm();
    const result = await run(["manifests", "check", dir]);
    expect(result).toEqual({ code: 0, stdout: `manifests ok: 3 connectors, 9 actions in ${dir}\n`, stderr: "" });
  });

  it("accepts --manifests DIR, and paths relative to the working directory", async () => {
    const dir = copyWithFakeWasm();
    const result = await run(["manifests", "check", "--manifests", "manifests"], { cwd: dirname(dir) });
    expect(result.stdout).toBe("manifests ok: 3 connectors, 9 actions in manifests\n");
    expect(result.code).toBe(0);
  });

  it("reads $COUNTERSIGN_HOME/manifests by default", async () => {
    const dir = copyWithFakeWasm();
    const result = await run(["manifests", "check", "--json"], { env: { COUNTERSIGN_HOME: dirname(dir) } });
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: true, dir, connectors: 3, actions: 9, errors: [] });
  });

  it("prints one line per error as file:line field: message and exits 2", async () => {
    const dir = broken();
    const result = await run(["manifests", "check", relative(dirname(dir), dir)], { cwd: dirname(dir) });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe(
      [
        'manifests/email/send_draft.toml:23 approval.preview.op: "get_drafts" is not an action of connector email',
        'manifests/http/post.toml:1 name: "put" does not match the file name post.toml',
        "",
      ].join("\n"),
    );
    expect(result.stderr).toBe("2 errors in manifests (3 connectors, 9 actions)\n");
  });

  it("--json lists the errors with file, field, line and message", async () => {
    const dir = broken();
    const result = await run(["manifests", "check", dir, "--json"]);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toEqual({
      ok: false,
      dir,
      connectors: 3,
      actions: 9,
      errors: [
        {
          file: "email/send_draft.toml",
          field: "approval.preview.op",
          line: 23,
          message: '"get_drafts" is not an action of connector email',
        },
        { file: "http/post.toml", field: "name", line: 1, message: '"put" does not match the file name post.toml' },
      ],
    });
  });

  it.each([
    [["manifests"], "missing subcommand: manifests check [DIR]"],
    [["manifests", "lint"], 'unknown subcommand "lint"; try: manifests check [DIR]'],
    [["manifests", "check", "a", "b"], 'unexpected argument "b"'],
    [["manifests", "check", "a", "--manifests", "b"], "give the manifest directory once: DIR or --manifests DIR"],
    [["manifests", "check", "--bogus"], "Unknown option '--bogus'"],
  ])("%j is a usage error", async (argv, message) => {
    const result = await run([...argv, "--json"]);
    expect(result.code).toBe(2);
    const envelope = JSON.parse(result.stdout);
    expect(envelope.error.class).toBe("usage_error");
    expect(envelope.error.message).toContain(message);
  });
});

describe("countersign api", () => {
  it("prints every declaration generated from the manifests", async () => {
    const dir = copyWithFakeWasm();
    const result = await run(["api", "--manifests", dir]);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(Object.values(generateApi(loadManifests(dir)).modules).join("\n"));
    expect(result.stdout).toContain('declare module "trusted/email" {');
  });

  it("--module prints one module, --json wraps it", async () => {
    const dir = copyWithFakeWasm();
    const text = await run(["api", "--manifests", dir, "--module", "trusted/fs/contracts"]);
    expect(text.stdout.startsWith('declare module "trusted/fs/contracts" {')).toBe(true);
    expect(text.stdout).not.toContain('declare module "trusted/fs" {');
    const json = await run(["api", "--manifests", dir, "--module", "trusted/fs", "--json"]);
    expect(Object.keys(JSON.parse(json.stdout).modules)).toEqual(["trusted/fs"]);
  });

  it("an unknown module is a usage error listing the available ones", async () => {
    const dir = copyWithFakeWasm();
    const result = await run(["api", "--manifests", dir, "--module", "trusted/mail", "--json"]);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout).error).toMatchObject({
      class: "usage_error",
      message:
        'unknown module "trusted/mail"; available: countersign, trusted/email, trusted/email/contracts, trusted/fs, trusted/fs/contracts, trusted/http, trusted/http/contracts',
    });
  });

  it("invalid manifests give the config_error envelope with every problem", async () => {
    const result = await run(["api", "--manifests", broken(), "--json"]);
    expect(result.code).toBe(2);
    const { error } = JSON.parse(result.stdout);
    expect(error).toMatchObject({ class: "config_error", boundary: "manifest" });
    expect(error.details.errors).toHaveLength(2);
  });
});
