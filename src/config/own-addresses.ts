import { existsSync } from "node:fs";
import { join } from "node:path";
import { CONNECTIONS_FILE, type Connections } from "../connector/index.js";
import { CountersignError } from "../model/index.js";
import { loadConnections } from "./load-connections.js";

/** The user's own mail addresses: the email connection's `address`, none when it has none. */
export function ownAddressesOf(connections: Connections): string[] {
  const address = connections.byConnector.email?.address;
  return address === undefined ? [] : [address];
}

/**
 * ownAddressesOf the data directory's connections.toml; none without the file. A problem in the
 * email table is refused; one elsewhere (an fs root over a secret) gives none: not knowing the
 * address only makes mail to oneself ask, and that problem is the runner's to report (every run
 * loads the file and names it), not a reason for the authority to stop deciding.
 */
export function ownAddresses(dataDir: string): string[] {
  if (!existsSync(join(dataDir, CONNECTIONS_FILE))) return [];
  try {
    return ownAddressesOf(loadConnections(dataDir));
  } catch (err) {
    const key = err instanceof CountersignError && err.class === "config_error" ? err.details?.key : undefined;
    if (typeof key === "string" && key !== "email" && !key.startsWith("email.")) return [];
    throw err;
  }
}
