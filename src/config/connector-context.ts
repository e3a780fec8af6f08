import type { ConnectorContext, CredentialRefresh, Secret } from "../connector/index.js";
import { DEFAULT_LIMITS, type Limits } from "../connector/index.js";
import type { PluginPool } from "../connector/index.js";
import { loadConnections } from "./load-connections.js";

/**
 * A connector context for the data directory `dataDir`: reads its connections.toml now. `secrets`
 * are files of countersign's outside the data directory (a SQLite store given by --database),
 * kept out of every program's reach as the data directory is. `audit` is told of every OAuth
 * refresh; `now` is the clock access tokens expire by.
 */
export function connectorContext(
  dataDir: string,
  options: {
    limits?: Partial<Limits>;
    plugins?: PluginPool;
    secrets?: readonly Secret[];
    audit?: (refresh: CredentialRefresh) => Promise<void>;
    now?: () => Date;
  } = {},
): ConnectorContext {
  const connections = loadConnections(dataDir, options.secrets === undefined ? {} : { secrets: options.secrets });
  const ctx: ConnectorContext = { connections, dataDir, limits: { ...DEFAULT_LIMITS, ...options.limits } };
  if (options.plugins !== undefined) ctx.plugins = options.plugins;
  if (options.audit !== undefined) ctx.audit = options.audit;
  if (options.now !== undefined) ctx.now = options.now;
  return ctx;
}
