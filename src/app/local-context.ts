import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import type { Analyzer } from "../analyze/index.js";
import { dataDir, defaultPolicyDir, homeDir, loadManifests, loadPolicy, manifestDirFor } from "../config/index.js";
import type { ManifestSet } from "../manifest/index.js";
import { LOCAL_ISSUER } from "../model/receipt.js";
import type { Policy } from "../policy/index.js";
import { authorityPath, fileKeyStore, FileRedemptionStore, loadLocalAuthority, MemoryRequestStore } from "../store/index.js";
import type { AppContext } from "./context.js";

export interface LocalOptions {
  manifests?: string; // a manifest directory given by the user, else the data directory's or the shipped ones
  policies?: string; // likewise for the policy
}

/**
 * The context of a command run by a user on this machine: their data directory and home (from
 * `env`), its files as key and redemption stores, requests in memory, the real clock. Manifests,
 * policy and analyzer are loaded on first use, so a command pays only for what it touches.
 */
export function localContext(env: NodeJS.ProcessEnv, options: LocalOptions = {}): AppContext & { close(): void } {
  const data = dataDir(env);
  const home = homeDir(env);
  let manifests: ManifestSet | undefined;
  let policy: Policy | undefined;
  let analyzer: Promise<Analyzer> | undefined;
  const context = {
    dataDir: data,
    home,
    issuer: existsSync(authorityPath(data)) ? loadLocalAuthority(data).issuer : LOCAL_ISSUER,
    now: () => new Date(),
    newId: () => randomUUID(),
    manifests: () => {
      if (manifests !== undefined) return manifests;
      const { dir, own } = manifestDirFor(data, options.manifests);
      return (manifests = loadManifests(dir, { own }));
    },
    policy: () => (policy ??= loadPolicy(options.policies ?? defaultPolicyDir(data), { manifests: context.manifests(), home })),
    // Imported here, not at the top: the analyzer loads the TypeScript compiler (~0.4 s).
    analyzer: () => (analyzer ??= import("../analyze/index.js").then((m) => m.createAnalyzer(context.manifests()))),
    keys: fileKeyStore(data),
    redemptions: new FileRedemptionStore(data),
    requests: new MemoryRequestStore(),
    close: () => void analyzer?.then((a) => a.dispose(), () => undefined), // an analyzer that failed to load has nothing to dispose
  };
  return context;
}
