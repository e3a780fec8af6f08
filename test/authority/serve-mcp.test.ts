// `countersign serve` as a real process answers MCP at /mcp: the command wires the tools to the
// authority it started, reached with the connecting agent's own token.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isolatedEnv } from "../support/isolated-env.js";
import { startServe, type ServeProcess } from "./serve-process.js";

const SLOW = 120_000;
let serve: ServeProcess;
let token: string;

beforeAll(async () => {
  const env = isolatedEnv({ COUNTERSIGN_DATABASE: "" });
  serve = await startServe(env);
  token = readFileSync(join(env.COUNTERSIGN_HOME!, "submitter.token"), "utf8").trim();
}, SLOW);

afterAll(async () => {
  expect(await serve?.stop()).toBe(0);
});

describe("countersign serve: MCP at /mcp", () => {
  it(
    "a host with the agent's token lists the tools and reads its context through the authority it runs on",
    async () => {
      const client = new Client({ name: "countersign-tests", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      try {
        expect((await client.listTools()).tools.map((t) => t.name)).toContain("run_program");
        const context = (await client.callTool({ name: "countersign_context", arguments: {} })) as {
          isError?: boolean;
          structuredContent?: Record<string, unknown>;
        };
        expect(context.isError).toBeFalsy();
        expect(context.structuredContent).toHaveProperty("authority");
      } finally {
        await client.close();
      }
    },
    SLOW,
  );

  it("without a token: 401 with a Bearer challenge", async () => {
    const response = await fetch(`${serve.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: "{}",
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/^Bearer /);
  });
});
