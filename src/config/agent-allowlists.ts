import { existsSync } from "node:fs";
import { join } from "node:path";
import { CONNECTIONS_FILE, type Connections } from "../connector/index.js";
import { declaredAllowlists, type Allowlists, type ManifestSet } from "../manifest/index.js";
import { formatTarget, urlTarget } from "../model/index.js";
import { loadConnections } from "./load-connections.js";

/**
 * The hosts and roots agent actions are checked against: the connector manifests' own lists,
 * narrowed by the user's connections.toml when the data directory has one (as the connector host
 * narrows them at run time). Without the file, only what the manifests declare.
 */
export function agentAllowlists(set: ManifestSet, dataDir: string): Allowlists {
  return existsSync(join(dataDir, CONNECTIONS_FILE)) ? allowlistsOf(set, loadConnections(dataDir)) : declaredAllowlists(set);
}

export function allowlistsOf(set: ManifestSet, connections: Connections): Allowlists {
  const { hosts, roots } = declaredAllowlists(set);
  const out = { hosts: { ...hosts }, roots: { ...roots } };
  for (const [name, connector] of set.connectors) {
    const conn = connections.byConnector[name];
    if (conn === undefined) continue;
    const declared = hosts[name];
    if (connector.manifest.capabilities.network !== undefined) {
      const given = conn.base_url !== undefined ? [formatTarget(urlTarget(new URL(conn.base_url))!)] : conn.hosts?.map((h) => h.toLowerCase());
      if (given !== undefined) out.hosts[name] = declared === undefined ? given : given.filter((h) => declared.includes(h));
    }
    if (connector.manifest.capabilities.fs !== undefined && conn.roots !== undefined) out.roots[name] = conn.roots;
  }
  return out;
}
