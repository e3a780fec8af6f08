import { loadConnections, type Connections } from "./connections.js";
import { DEFAULT_LIMITS, type Limits } from "./limits.js";
import type { PluginPool } from "./plugin-pool.js";

/**
 * Everything trusted an action runs with: the user's connections, the data directory, the
 * limits, and optionally a pool that keeps plugins loaded between actions (without one, each
 * action loads its plugins and closes them when it ends).
 */
export interface ConnectorContext {
  connections: Connections;
  dataDir: string;
  limits: Limits;
  plugins?: PluginPool;
}

/** A context for `dataDir` (see dataDir() in model/paths.ts); reads its connections.toml now. */
export function connectorContext(dataDir: string, options: { limits?: Partial<Limits>; plugins?: PluginPool } = {}): ConnectorContext {
  const ctx: ConnectorContext = { connections: loadConnections(dataDir), dataDir, limits: { ...DEFAULT_LIMITS, ...options.limits } };
  if (options.plugins !== undefined) ctx.plugins = options.plugins;
  return ctx;
}
