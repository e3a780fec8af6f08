// The connector host's public surface. Actions run through callWithReceipt (a checked receipt) or
// fetchPreview (read-only actions without approval); executeAction is not part of it.
export { callWithReceipt } from "./call-with-receipt.js";
export { callAgentAction } from "./call-agent-action.js";
export { marshal } from "./marshal.js";
export { fetchPreview, PREVIEW_TIMEOUT_MS, type Preview, type PreviewPolicy } from "./fetch-preview.js";
export type { ConnectorContext } from "./context.js";
export { accessTokenCachePath, cacheAccessToken, tokenLifetimeMs, type CredentialRefresh } from "./access-tokens.js";
export { authorizeWithLoopback, type Authorized, type LoopbackAuthorization } from "./authorize-loopback.js";
export { OAuthCredential, OAuthEndpointUrl } from "./oauth-credential.js";
export { Connection, ConnectionsFile, CONNECTIONS_FILE, type Connections, type Secret } from "./connections.js";
export { createPluginPool, type PluginPool } from "./plugin-pool.js";
export { DEFAULT_LIMITS, type Limits } from "./limits.js";
export { resolvePath } from "./resolve-path.js";
export { readForApproval, type ApprovalRead } from "./read-for-approval.js";
