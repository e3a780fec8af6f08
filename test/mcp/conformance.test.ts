// Slow: the official suite runs every scenario as a process of its own against the authority.
// The official MCP conformance suite (@modelcontextprotocol/conformance), in server mode, against
// /mcp of a real authority on 127.0.0.1. The suite's client sends no Authorization header, so a
// loopback proxy adds the agent's bearer token and passes everything else on as it came (the Host
// included: the DNS rebinding scenario sends its own); the authority answers to the proxy's address
// as it would behind any proxy (allowedHosts). Nothing leaves the machine.
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localContext } from "../../src/app/index.js";
import { httpAuthority } from "../../src/cli/http-authority.js";
import { httpMcpEndpoint } from "../../src/mcp/index.js";
import { startTestAuthority, type TestAuthority } from "../authority/harness.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SUITE = join(ROOT, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
const SLOW = 120_000;

/** The protocol scenarios: each must pass. */
const APPLICABLE = [
  "server-initialize",
  "ping",
  "tools-list",
  "server-sse-multiple-streams",
  "dns-rebinding-protection",
];

/**
 * The suite's other server scenarios, and why they do not apply: each calls a fixture of the
 * suite's own reference server (a tool, prompt or resource by its name) or a capability countersign
 * does not offer. countersign serves its seven tools and nothing else, by design.
 */
const NOT_APPLICABLE: Record<string, string> = {
  "logging-set-level": "no logging capability is declared (tools answer in their results)",
  "completion-complete": "no prompts or resource templates, so no completion capability",
  "tools-call-simple-text": "calls the suite's fixture tool test_simple_text",
  "tools-call-image": "calls the suite's fixture tool test_image_content",
  "tools-call-audio": "calls the suite's fixture tool test_audio_content",
  "tools-call-embedded-resource": "calls the suite's fixture tool test_embedded_resource",
  "tools-call-mixed-content": "calls the suite's fixture tool test_multiple_content_types",
  "tools-call-with-logging": "calls the suite's fixture tool test_tool_with_logging",
  "tools-call-error": "calls the suite's fixture tool test_error_handling",
  "tools-call-with-progress":
    "calls the suite's fixture tool test_tool_with_progress (progress of run_program is tested in mcp-http.test.ts)",
  "tools-call-sampling": "calls the suite's fixture tool test_sampling; countersign never asks the host's model",
  "tools-call-elicitation":
    "calls the suite's fixture tool test_elicitation; a person approves at the authority, not through the host",
  "json-schema-2020-12": "reads the suite's fixture tool json_schema_2020_12_tool",
  "elicitation-sep1034-defaults": "calls the suite's fixture tool test_elicitation_sep1034_defaults",
  "elicitation-sep1330-enums": "calls the suite's fixture tool test_elicitation_sep1330_enums",
  "server-sse-polling":
    "calls the suite's fixture tool test_reconnection, and needs resumable streams (an event store), which /mcp does not offer",
  "resources-list": "no resources are offered",
  "resources-read-text": "no resources are offered",
  "resources-read-binary": "no resources are offered",
  "resources-templates-read": "no resources are offered",
  "resources-subscribe": "no resources are offered",
  "resources-unsubscribe": "no resources are offered",
  "prompts-list": "no prompts are offered",
  "prompts-get-simple": "no prompts are offered",
  "prompts-get-with-args": "no prompts are offered",
  "prompts-get-embedded-resource": "no prompts are offered",
  "prompts-get-with-image": "no prompts are offered",
};

interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
}

let a: TestAuthority;
let proxy: Server;
let proxyUrl: string;
let runner: ReturnType<typeof localContext> | undefined;

/** Pass each request on to the authority as it came, with the agent's token added. */
function startProxy(target: () => { port: number; token: string }): Promise<Server> {
  const server = createServer((req, res) => {
    const { port, token } = target();
    const out = request(
      {
        host: "127.0.0.1",
        port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, authorization: `Bearer ${token}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on("error", () => res.destroy());
    res.on("close", () => out.destroy());
    req.pipe(out);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

/** One scenario of the suite as a child process; its checks as it saved them. */
function runScenario(scenario: string): Promise<{ checks: Check[]; output: string }> {
  const out = mkdtempSync(join(tmpdir(), "countersign-conformance-"));
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [SUITE, "server", "--url", proxyUrl, "--scenario", scenario, "-o", out],
      { timeout: SLOW, env: { ...process.env, NO_COLOR: "1" } },
      (err, stdout, stderr) => {
        try {
          const dirs = readdirSync(out);
          const file = dirs.length === 1 ? join(out, dirs[0]!, "checks.json") : undefined;
          const checks = file === undefined ? [] : (JSON.parse(readFileSync(file, "utf8")) as Check[]);
          resolve({ checks, output: `${stdout}\n${stderr}\n${err?.message ?? ""}` });
        } catch (readErr) {
          reject(new Error(`no checks saved by ${scenario}: ${(readErr as Error).message}\n${stdout}\n${stderr}`));
        }
      },
    );
  });
}

beforeAll(async () => {
  let target = { port: 0, token: "" };
  proxy = await startProxy(() => target);
  const proxyPort = (proxy.address() as AddressInfo).port;
  proxyUrl = `http://127.0.0.1:${proxyPort}/mcp`;
  let url = "";
  const endpoint = httpMcpEndpoint({
    context: () => (runner ??= localContext({ HOME: tmpdir(), COUNTERSIGN_HOME: a.dataDir })),
    version: "0.0.0-test",
    authority: (token) => httpAuthority({ url, token }),
  });
  a = await startTestAuthority("sqlite", {
    mcp: endpoint,
    allowedHosts: [`127.0.0.1:${proxyPort}`, `localhost:${proxyPort}`],
  });
  url = a.url;
  target = { port: a.authority.port, token: a.token };
}, SLOW);

afterAll(async () => {
  await new Promise((resolve) => proxy?.close(resolve));
  proxy?.closeAllConnections();
  await a?.close();
  await runner?.close();
});

describe("the MCP conformance suite against /mcp", () => {
  it(
    "lists every server scenario of the suite as applicable or not applicable, with the reason",
    async () => {
      const listed = await new Promise<string>((resolve, reject) =>
        execFile(process.execPath, [SUITE, "list"], (err, stdout) => (err === null ? resolve(stdout) : reject(err))),
      );
      const server = listed.split("Client scenarios")[0]!;
      const scenarios = [...server.matchAll(/^\s+- (\S+)$/gm)].map((m) => m[1]!);
      expect(scenarios.length).toBeGreaterThan(0);
      expect([...APPLICABLE, ...Object.keys(NOT_APPLICABLE)].sort()).toEqual([...scenarios].sort());
    },
    SLOW,
  );

  it.each(APPLICABLE)(
    "%s passes",
    async (scenario) => {
      const { checks, output } = await runScenario(scenario);
      expect(checks.length, output).toBeGreaterThan(0);
      const failed = checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING");
      expect(failed, output).toEqual([]);
    },
    SLOW,
  );
});
