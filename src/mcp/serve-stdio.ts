import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createMcpServer } from "./create-server.js";
import type { McpDeps } from "./deps.js";

/** Serve MCP on stdin/stdout until the host closes stdin. */
export async function serveStdio(deps: McpDeps): Promise<void> {
  const server = createMcpServer(deps);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
    process.stdin.once("end", () => void server.close());
  });
  await server.connect(new StdioServerTransport());
  await closed;
}
