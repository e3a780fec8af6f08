// The user's configuration as read from disk: the data directory, `~`, manifests and policies.
export { databaseOf, dataDir, homeDir } from "./data-dir.js";
export { manifestDirFor } from "./manifest-dir.js";
export { defaultPolicyDir } from "./policy-dir.js";
export { checkManifests, loadManifests, type ManifestDirOptions } from "./load-manifests.js";
export { checkPolicy, loadPolicy } from "./load-policy.js";
export { readFileBytes, readTextFile } from "./read-file.js";
export { loadConnections } from "./load-connections.js";
export { connectorContext } from "./connector-context.js";
export { fetchJwks } from "./fetch-jwks.js";
export { packageVersion } from "./package-version.js";
export { listDir } from "./list-dir.js";
export { agentAllowlists, allowlistsOf, connectorReach } from "./agent-allowlists.js";
export { ownAddresses, ownAddressesOf } from "./own-addresses.js";
export { refreshTokenPath, saveOAuthConnection } from "./save-connection.js";
