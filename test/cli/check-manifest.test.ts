import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Io } from "../../src/cli/command.js";
import { main } from "../../src/cli/main.js";
import { packageRoot } from "../../src/model/paths.js";
import { isolatedEnv } from "../support/isolated-env.js";

function capture(env: NodeJS.ProcessEnv = isolatedEnv()): Io & { out: string; err: string } {
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

const MANIFEST = "examples/agent-manifests/create_issue.toml";
const manifestText = readFileSync(join(packageRoot, MANIFEST), "utf8");

function tempManifest(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "cs-agent-")), "create_issue.toml");
  writeFileSync(path, text);
  return path;
}

describe("countersign check --manifest", () => {
  it("analyzes a program using an agent action: the facts show the real op and which agent action made it; the policy asks", async () => {
    const io = capture();
    expect(await main(["check", "examples/file-issue.ts", "--manifest", MANIFEST, "--json"], io)).toBe(0);
    const out = JSON.parse(io.out);
    expect(out.diagnostics).toEqual([]);
    expect(out.effects).toEqual([
      expect.objectContaining({
        op: "http.post",
        agentAction: expect.objectContaining({
          op: "agent.create_issue",
          step: "create",
          description: "Open an issue in a repository of the example issue tracker.",
        }),
      }),
    ]);
    expect(out.effects[0].args.url).toEqual({
      kind: "const",
      values: ["https://api.example.com/repos/acme/widgets/issues"],
    });
    expect(out.agentManifests.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(out.guarantees.map((g: { status: string }) => g.status)).toEqual(["proven", "proven"]);
    expect(out.decision.kind).toBe("ask");
  });

  it("prints the step and its agent action for people", async () => {
    const io = capture();
    expect(await main(["check", "examples/file-issue.ts", "--manifest", MANIFEST], io)).toBe(0);
    expect(io.out).toContain("effect   http.post (step create of agent.create_issue) at 11:11 (once)");
  });

  it("without the manifest, the program's import of trusted/agent is refused", async () => {
    const io = capture();
    expect(await main(["check", "examples/file-issue.ts", "--json"], io)).toBe(1);
    expect(JSON.parse(io.out).diagnostics.map((d: { code: string }) => d.code)).toContain("refused_import");
  });

  it("refuses invalid agent manifests with exit 1 and every problem, file:line and field", async () => {
    const bad = tempManifest(
      manifestText
        .replace('op = "post"', 'op = "delete"')
        .replace("https://api.example.com/", "https://api.example.com@evil.example/"),
    );
    const io = capture();
    expect(await main(["check", "examples/file-issue.ts", "--manifest", bad], io)).toBe(1);
    expect(io.err).toContain("analysis_rejected: invalid agent manifests (1 error)");
    expect(io.err).toContain(
      `${bad}:26 execute[0].op: "delete" is not a trusted action of connector http (actions: get, post)`,
    );
    const json = capture();
    expect(await main(["check", "examples/file-issue.ts", "--manifest", bad, "--json"], json)).toBe(1);
    expect(JSON.parse(json.out).error).toMatchObject({
      class: "analysis_rejected",
      boundary: "manifest",
      details: {
        reason: "invalid_agent_manifests",
        errors: [expect.objectContaining({ line: 26, field: "execute[0].op" })],
      },
    });
  });

  it("checks a step's URL against the hosts of the user's connections.toml", async () => {
    const env = isolatedEnv();
    writeFileSync(join(env.COUNTERSIGN_HOME!, "connections.toml"), '[http]\nhosts = ["api.github.com:443"]\n');
    const io = capture(env);
    expect(await main(["check", "examples/file-issue.ts", "--manifest", MANIFEST], io)).toBe(1);
    expect(io.err).toContain(
      'execute[0].inputs.url: a value starting "https://api.example.com/repos/" can never be on a host that connector http may call (api.github.com:443)',
    );
  });

  it("an agent manifest that cannot be read, or is not UTF-8, is a usage error", async () => {
    const io = capture();
    expect(await main(["check", "examples/file-issue.ts", "--manifest", "nope.toml"], io)).toBe(2);
    expect(io.err).toContain("cannot read");
    const binary = join(mkdtempSync(join(tmpdir(), "cs-agent-")), "x.toml");
    writeFileSync(binary, new Uint8Array([0xff, 0xfe, 0x00]));
    const again = capture();
    expect(await main(["check", "examples/file-issue.ts", "--manifest", binary], again)).toBe(2);
    expect(again.err).toContain("is not UTF-8 text");
  });
});
