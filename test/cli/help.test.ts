import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { Io } from "../../src/cli/command.js";
import { main } from "../../src/cli/main.js";
import { packageRoot } from "../../src/model/paths.js";
import { isolatedEnv } from "../support/isolated-env.js";

// Loading the analyzer (and the TypeScript compiler behind it) fails this file: help and
// --version must answer without it.
vi.mock("../../src/analyze/index.js", () => {
  throw new Error("the analyzer was loaded");
});
vi.mock("typescript6", () => {
  throw new Error("the compiler was loaded");
});

async function run(argv: string[]): Promise<{ code: number; out: string }> {
  const out: string[] = [];
  const io: Io = {
    stdout: (t) => void out.push(t),
    stderr: (t) => void out.push(t),
    readStdin: async () => "",
    env: isolatedEnv(),
    cwd: packageRoot,
  };
  return { code: await main(argv, io), out: out.join("") };
}

describe("countersign help and --version", () => {
  it("help lists every command with its summary without loading any command", async () => {
    const { code, out } = await run(["help"]);
    expect(code).toBe(0);
    for (const name of ["manifests", "api", "policy", "keys", "receipt", "check", "connect"])
      expect(out).toMatch(new RegExp(`^  ${name} +\\S`, "m"));
    expect(out).toContain("analyze a program: effects, guarantees, summary");
  });

  it("no arguments print the same list and exit 2", async () => {
    const { code, out } = await run([]);
    expect(code).toBe(2);
    expect(out).toBe((await run(["--help"])).out);
  });

  it("--version prints the package version", async () => {
    const version = JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")).version;
    for (const flag of ["--version", "-v", "version"])
      expect(await run([flag])).toEqual({ code: 0, out: `countersign ${version}\n` });
  });

  it("the mock really guards: a command that analyzes fails to load", async () => {
    const { code, out } = await run(["check", "examples/notify-team.ts"]);
    expect(code).toBe(2);
    expect(out).toMatch(/error when mocking/);
  });
});
