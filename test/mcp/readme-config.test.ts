// The README's configuration for agent hosts works as written: the JSON snippet's command, args
// and env launch the server with the SDK's own stdio client (as Claude Desktop and other hosts
// do), its tools list and countersign_api answers; the `claude mcp add` lines start the same
// command. Run from the package root, where `npx countersign` is this package (built by `npm test`).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SLOW = 180_000;

/** The README's section on agent hosts, up to the next section. */
function hostsSection(): string {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const start = readme.indexOf("## Agent hosts: `countersign mcp`");
  expect(start).toBeGreaterThan(-1);
  const end = readme.indexOf("\n## ", start + 1);
  return readme.slice(start, end === -1 ? undefined : end);
}

/** Every fenced block of `lang` in `text`. */
const blocks = (text: string, lang: string): string[] =>
  [...text.matchAll(new RegExp("```" + lang + "\\n([^]*?)```", "g"))].map((m) => m[1]!);

interface ServerConfig {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

function jsonConfig(): ServerConfig {
  const [json, ...more] = blocks(hostsSection(), "json");
  expect(more).toEqual([]);
  const config = JSON.parse(json!) as { mcpServers: Record<string, ServerConfig> };
  expect(Object.keys(config.mcpServers)).toEqual(["countersign"]);
  return config.mcpServers.countersign!;
}

describe("the README's agent host configuration", () => {
  let client: Client | undefined;
  afterAll(async () => client?.close());

  it("the `claude mcp add` lines run the JSON snippet's command and args", () => {
    const { command, args, env } = jsonConfig();
    const lines = blocks(hostsSection(), "sh")
      .flatMap((b) => b.split("\n"))
      .filter((l) => l.startsWith("claude mcp add countersign"));
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const l of lines) expect(l.slice(l.indexOf(" -- ") + 4).split(" ")).toEqual([command, ...args]);
    expect(Object.keys(env ?? {})).toEqual(["COUNTERSIGN_HOME"]);
  });

  it(
    "launched exactly as the JSON says, it lists its tools and countersign_api answers",
    async () => {
      const { command, args, env } = jsonConfig();
      // As a host starts it: the SDK's default environment (PATH, HOME, ...) with the snippet's env over it.
      const transport = new StdioClientTransport({
        command,
        args,
        ...(env === undefined ? {} : { env }),
        cwd: ROOT,
        stderr: "pipe",
      });
      client = new Client({ name: "readme-host", version: "1.0.0" });
      await client.connect(transport);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([
        "check_program",
        "countersign_api",
        "countersign_context",
        "get_request",
        "run_program",
        "run_request",
        "withdraw_request",
      ]);
      const api = (await client.callTool({ name: "countersign_api", arguments: {} }, undefined, { timeout: SLOW })) as {
        isError?: boolean;
        structuredContent?: Record<string, any>;
      };
      expect(api.isError).toBeFalsy();
      expect(Object.keys(api.structuredContent!.modules)).toEqual(
        expect.arrayContaining(["countersign", "trusted/email", "trusted/email/contracts"]),
      );
      expect(api.structuredContent!.skeleton).toContain("export default program(");
    },
    SLOW,
  );
});
