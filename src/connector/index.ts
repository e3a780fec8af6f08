// The connector host's public surface.
export { executeAction } from "./execute-action.js";
export { callWithReceipt } from "./call-with-receipt.js";
export { fetchPreview, PREVIEW_TIMEOUT_MS, type Preview, type PreviewField } from "./fetch-preview.js";
export type { ConnectorContext } from "./context.js";
export { Connection, ConnectionsFile, CONNECTIONS_FILE, type Connections } from "./connections.js";
export { createPluginPool, type PluginPool } from "./plugin-pool.js";
export { DEFAULT_LIMITS, type Limits } from "./limits.js";
export { resolvePath } from "./resolve-path.js";
