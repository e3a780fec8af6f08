import { existsSync } from "node:fs";
import { join } from "node:path";
import { CONNECTIONS_FILE, type Connections } from "../connector/index.js";
import { loadConnections } from "./load-connections.js";

/** The user's own mail addresses: the email connection's `address`, none when it has none. */
export function ownAddressesOf(connections: Connections): string[] {
  const address = connections.byConnector.email?.address;
  return address === undefined ? [] : [address];
}

/** ownAddressesOf the data directory's connections.toml; none without the file. */
export function ownAddresses(dataDir: string): string[] {
  return existsSync(join(dataDir, CONNECTIONS_FILE)) ? ownAddressesOf(loadConnections(dataDir)) : [];
}
