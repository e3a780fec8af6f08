import { existsSync } from "node:fs";
import { join } from "node:path";
import { CONNECTIONS_FILE, type Connection, type Connections } from "../connector/index.js";
import { declaredAllowlists, type Allowlists, type ManifestSet } from "../manifest/index.js";
import { formatTarget, urlTarget } from "../model/index.js";
import { loadConnections } from "./load-connections.js";

/**
 * The hosts and roots agent actions are checked against: the connector manifests' own lists,
 * narrowed by the user's connections.toml when the data directory has one (as the connector host
 * narrows them at run time). Without the file, only what the manifests declare.
 */
export function agentAllowlists(set: ManifestSet, dataDir: string): Allowlists {
  return existsSync(join(dataDir, CONNECTIONS_FILE))
    ? allowlistsOf(set, loadConnections(dataDir))
    : declaredAllowlists(set);
}

/**
 * The hosts and roots the connectors reach at run time: each connection's own (its base_url's
 * host, else its hosts; its roots), else what the manifest declares. Unlike the agent allowlists,
 * not narrowed by the manifests: a base_url points the connector elsewhere on purpose.
 */
export function connectorReach(set: ManifestSet, dataDir: string): Allowlists {
  const { hosts, roots } = declaredAllowlists(set);
  const out = { hosts: { ...hosts }, roots: { ...roots } };
  if (!existsSync(join(dataDir, CONNECTIONS_FILE))) return out;
  for (const [name, conn] of Object.entries(loadConnections(dataDir).byConnector)) {
    const given = connectionHosts(conn);
    if (given !== undefined) out.hosts[name] = given;
    if (conn.roots !== undefined) out.roots[name] = conn.roots;
  }
  return out;
}

/** The hosts a connection names: its base_url's host, else its hosts (lower case); undefined when neither. */
function connectionHosts(conn: Connection): string[] | undefined {
  return conn.base_url !== undefined
    ? [formatTarget(urlTarget(new URL(conn.base_url))!)]
    : conn.hosts?.map((h) => h.toLowerCase());
}

export function allowlistsOf(set: ManifestSet, connections: Connections): Allowlists {
  const { hosts, roots } = declaredAllowlists(set);
  const out = { hosts: { ...hosts }, roots: { ...roots } };
  for (const [name, connector] of set.connectors) {
    const conn = connections.byConnector[name];
    if (conn === undefined) continue;
    const declared = hosts[name];
    if (connector.manifest.capabilities.network !== undefined) {
      const given = connectionHosts(conn);
      if (given !== undefined)
        out.hosts[name] = declared === undefined ? given : given.filter((h) => declared.includes(h));
    }
    if (connector.manifest.capabilities.fs !== undefined && conn.roots !== undefined) out.roots[name] = conn.roots;
  }
  return out;
}
