import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { registerApiTool } from "./api-tool.js";
import { registerCheckTool } from "./check-tool.js";
import { registerContextTool } from "./context-tool.js";
import type { McpDeps } from "./deps.js";
import { registerRequestTool } from "./request-tool.js";
import { registerRunTool } from "./run-tool.js";
import { toolResult } from "./tool-result.js";

/** What to do about a call refused before any tool ran. */
const MALFORMED_NEXT =
  "Nothing was done: fix the call as the error says (each tool's input schema lists its arguments; no other is accepted) and call again.";
/** What to do about a result the server could not give (a fault of the server, not of the call). */
const INTERNAL_NEXT = "The server failed to answer this call: tell the user; do not retry in a loop.";

/** The SDK's own refusals of a call: arguments that do not fit the tool's input schema, a tool that is not there. */
const CALL_REFUSED = /Input validation error|Invalid arguments for tool|Tool \S+ (not found|disabled)/;

/** The countersign MCP server with its tools, not yet connected to a transport. */
export function createMcpServer(deps: McpDeps): McpServer {
  const server = new McpServer(
    { name: "countersign", version: deps.version },
    {
      instructions:
        "Read countersign_context for what may be done here, write a program against countersign_api, check it with check_program, run it with run_program. Every side effect is approved by policy or a person first. " +
        "A request a person has not decided yet stays open: run_request runs it once approved, withdraw_request takes it back.",
    },
  );
  // A call the SDK refuses before any tool runs (an unknown tool, malformed or unknown arguments)
  // is answered as every other result is: structuredContent with the error and what to do next.
  const sdk = server as unknown as { createToolError?: (message: string) => unknown };
  if (typeof sdk.createToolError === "function") {
    sdk.createToolError = (message: string) =>
      CALL_REFUSED.test(message)
        ? toolResult({ error: { class: "usage_error" as const, message }, next: MALFORMED_NEXT }, true)
        : toolResult({ error: { class: "internal_error" as const, message }, next: INTERNAL_NEXT }, true);
  }
  registerApiTool(server, deps);
  registerContextTool(server, deps);
  registerCheckTool(server, deps);
  registerRunTool(server, deps);
  registerRequestTool(server, deps);
  return server;
}
