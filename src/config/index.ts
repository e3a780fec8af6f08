// The user's configuration as read from disk: the data directory, `~`, and where manifests and
// policies come from.
export { dataDir, homeDir } from "./data-dir.js";
export { defaultManifestDir } from "./manifest-dir.js";
export { defaultPolicyDir } from "./policy-dir.js";
