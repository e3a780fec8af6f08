// The MCP server agent hosts start (`countersign mcp`): thin tools over the app's use cases.
export { createMcpServer } from "./create-server.js";
export { serveStdio } from "./serve-stdio.js";
export type { McpDeps } from "./deps.js";
