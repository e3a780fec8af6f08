import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { registerApiTool } from "./api-tool.js";
import { registerCheckTool } from "./check-tool.js";
import type { McpDeps } from "./deps.js";
import { registerRequestTool } from "./request-tool.js";
import { registerRunTool } from "./run-tool.js";

/** The countersign MCP server with its four tools, not yet connected to a transport. */
export function createMcpServer(deps: McpDeps): McpServer {
  const server = new McpServer(
    { name: "countersign", version: deps.version },
    { instructions: "Write a program against countersign_api, check it with check_program, run it with run_program. Every side effect is approved by policy or a person first." },
  );
  registerApiTool(server, deps);
  registerCheckTool(server, deps);
  registerRunTool(server, deps);
  registerRequestTool(server, deps);
  return server;
}
