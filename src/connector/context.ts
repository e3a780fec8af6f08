import type { CredentialRefresh } from "./access-tokens.js";
import type { Connections } from "./connections.js";
import type { Limits } from "./limits.js";
import type { PluginPool } from "./plugin-pool.js";

/**
 * Everything trusted an action runs with: the user's connections, the data directory (where
 * OAuth access tokens are cached), the limits, and optionally a pool that keeps plugins loaded
 * between actions (without one, each action loads its plugins and closes them when it ends), the
 * clock (default: the real one) and the audit, told of every OAuth refresh (without it none is
 * recorded). Built by config/connector-context.ts.
 */
export interface ConnectorContext {
  connections: Connections;
  dataDir: string;
  limits: Limits;
  plugins?: PluginPool;
  now?: () => Date;
  audit?: (refresh: CredentialRefresh) => Promise<void>;
}
