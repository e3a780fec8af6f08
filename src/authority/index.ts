// The authority: `countersign serve`, the HTTP service the agent and the approver meet at.
export { startAuthority, DEFAULT_HOST, DEFAULT_PORT, type Authority, type AuthorityOptions } from "./authority.js";
export { DEFAULT_ANALYSIS_TIMEOUT_MS, describeReload, type ReloadResult } from "./authority-state.js";
export { DEFAULT_MAX_BODY_BYTES } from "./create-app.js";
export type { McpEndpoint } from "./deps.js";
