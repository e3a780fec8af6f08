import type { ConnectorContext } from "../connector/index.js";
import { DEFAULT_LIMITS, type Limits } from "../connector/index.js";
import type { PluginPool } from "../connector/index.js";
import { loadConnections } from "./load-connections.js";

/** A connector context for the data directory `dataDir`: reads its connections.toml now. */
export function connectorContext(dataDir: string, options: { limits?: Partial<Limits>; plugins?: PluginPool } = {}): ConnectorContext {
  const ctx: ConnectorContext = { connections: loadConnections(dataDir), dataDir, limits: { ...DEFAULT_LIMITS, ...options.limits } };
  if (options.plugins !== undefined) ctx.plugins = options.plugins;
  return ctx;
}
