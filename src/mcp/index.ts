// The MCP server agent hosts start (`countersign mcp` over stdio, `countersign serve` at /mcp): thin tools over the
// app's use cases.
export { createMcpServer } from "./create-server.js";
export { serveStdio } from "./serve-stdio.js";
export type { McpDeps } from "./deps.js";
export { httpMcpEndpoint, type HttpMcpOptions } from "./serve-http.js";
