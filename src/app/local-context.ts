import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Analyzer } from "../analyze/index.js";
import {
  databaseOf,
  dataDir,
  defaultPolicyDir,
  homeDir,
  loadManifests,
  loadPolicy,
  manifestDirFor,
  ownAddresses,
} from "../config/index.js";
import type { ManifestSet } from "../manifest/index.js";
import { LOCAL_ISSUER } from "../model/index.js";
import type { Policy } from "../policy/index.js";
import {
  authorityPath,
  fileKeyStore,
  FileRedemptionStore,
  loadLocalAuthority,
  openStore,
  SQLITE_FILE,
  type Store,
} from "../store/index.js";
import type { AppContext, ProgramInput } from "./context.js";
import { manifestsFor } from "./manifests-for.js";

export interface LocalOptions {
  manifests?: string; // a manifest directory given by the user, else the data directory's or the shipped ones
  policies?: string; // likewise for the policy
  // the authority's store: a postgres:// URL or a SQLite file; default $COUNTERSIGN_DATABASE, else the data directory's
  database?: string;
}

/**
 * The context of a command run by a user on this machine: their data directory and home (from
 * `env`), its files as key and redemption stores, the real clock. Manifests, policy, analyzer and
 * store are opened on first use, so a command pays only for what it touches.
 */
export function localContext(
  env: NodeJS.ProcessEnv,
  options: LocalOptions = {},
): AppContext & { close(): Promise<void> } {
  const data = dataDir(env);
  const home = homeDir(env);
  const database = databaseOf(env, options.database);
  let manifests: ManifestSet | undefined;
  let policy: Policy | undefined;
  let analyzer: Promise<Analyzer> | undefined;
  let store: Promise<Store> | undefined;
  const context = {
    dataDir: data,
    home,
    issuer: existsSync(authorityPath(data)) ? loadLocalAuthority(data).issuer : LOCAL_ISSUER,
    now: () => new Date(),
    manifests: () => {
      if (manifests !== undefined) return manifests;
      const { dir, own } = manifestDirFor(data, options.manifests);
      return (manifests = loadManifests(dir, { own }));
    },
    policy: () =>
      (policy ??= loadPolicy(options.policies ?? defaultPolicyDir(data), {
        manifests: context.manifests(),
        home,
        ownAddresses: ownAddresses(data),
      })),
    analyze: async (program: ProgramInput) => {
      const set = manifestsFor(context.manifests(), data, program.manifests);
      const options = { entry: program.entry, ...(program.budget === undefined ? {} : { budget: program.budget }) };
      // Imported here, not at the top: the analyzer loads the TypeScript compiler, slow to load.
      if (set.agent === undefined) {
        analyzer ??= import("../analyze/index.js").then((m) => m.createAnalyzer(context.manifests()));
        return (await analyzer).analyze(program.source, options);
      }
      const own = (await import("../analyze/index.js")).createAnalyzer(set); // its API declares trusted/agent
      try {
        return own.analyze(program.source, options);
      } finally {
        own.dispose();
      }
    },
    keys: fileKeyStore(data),
    redemptions: new FileRedemptionStore(data),
    store: () => (store ??= openStore({ dataDir: data, ...(database === undefined ? {} : { database }) })),
    // A check on a machine whose authority never ran has no store: no remembered rules, and no file made for it.
    rememberedRules: async () =>
      database === undefined && !existsSync(join(data, SQLITE_FILE))
        ? []
        : (await context.store()).listRememberedRules(),
    close: async () => {
      void analyzer?.then(
        (a) => a.dispose(),
        () => undefined,
      ); // an analyzer that failed to load has nothing to dispose
      await store?.then(
        (s) => s.close(),
        () => undefined,
      );
    },
  };
  return context;
}
