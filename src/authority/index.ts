// The authority: `countersign serve`, the HTTP service the agent and the approver meet at. Its
// index loads little: the routes, the use cases and the compiler load once it listens.
export { startAuthority, DEFAULT_HOST, DEFAULT_PORT, type Authority, type AuthorityOptions } from "./authority.js";
export { DEFAULT_ANALYSIS_TIMEOUT_MS, DEFAULT_MAX_BODY_BYTES } from "./limits.js";
export { describeReload, type ReloadResult } from "./reload-result.js";
export type { McpEndpoint } from "./deps.js";
