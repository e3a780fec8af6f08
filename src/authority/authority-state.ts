import { join } from "node:path";
import { manifestsFor, type AppContext } from "../app/index.js";
import {
  connectorContext,
  defaultPolicyDir,
  loadManifests,
  loadPolicy,
  manifestDirFor,
  ownAddresses,
  packageVersion,
} from "../config/index.js";
import { PREVIEW_TIMEOUT_MS } from "../connector/index.js";
import { manifestsHash, type ManifestSet } from "../manifest/index.js";
import type { Policy } from "../policy/index.js";
import { fileKeyStore, type Store } from "../store/index.js";
import { AnalysisPool } from "./analysis-pool.js";
import { DecisionThread } from "./decision-thread.js";
import { FactsCache } from "./facts-cache.js";
import { cachedKeyStore } from "./key-cache.js";
import { DEFAULT_ANALYSIS_TIMEOUT_MS } from "./limits.js";
import type { ReloadResult } from "./reload-result.js";

export interface StateOptions {
  dataDir: string;
  home: string;
  issuer: string;
  manifests?: string; // --manifests; default the data directory's, else the shipped ones
  policies?: string; // --policies; default the data directory's, else the shipped ones
  poolSize?: number;
  analysisTimeoutMs?: number;
  previewTimeoutMs?: number; // each preview at approval time (default and most: the connector's 5 s)
  now?: () => Date;
}

/** Manifests and policy as read from disk now; throws a config_error naming every problem. */
export function readConfig(options: StateOptions): { manifests: ManifestSet; manifestsSha256: string; policy: Policy } {
  const { dir, own } = manifestDirFor(options.dataDir, options.manifests);
  const manifests = loadManifests(dir, { own });
  const policy = loadPolicy(options.policies ?? defaultPolicyDir(options.dataDir), {
    manifests,
    home: options.home,
    ownAddresses: ownAddresses(options.dataDir),
  });
  return { manifests, manifestsSha256: manifestsHash(manifests), policy };
}

/**
 * What the running authority holds: the manifests and policy in force (replaced together on
 * reload), the analysis pool, the facts cache and the store, and the AppContext its use cases run
 * with. Facts come from the pool through the cache; nothing here runs the TypeScript checker on
 * the event loop; decisions and receipts are worked out on a thread of their own.
 */
export class AuthorityState {
  readonly options: StateOptions;
  readonly store: Store;
  readonly pool: AnalysisPool;
  readonly facts = new FactsCache();
  readonly decisions: DecisionThread;
  readonly analyzerVersion = packageVersion();
  readonly ctx: AppContext;
  config: ReturnType<typeof readConfig>;

  private constructor(options: StateOptions, store: Store, pool: AnalysisPool, config: ReturnType<typeof readConfig>) {
    this.options = options;
    this.store = store;
    this.pool = pool;
    this.config = config;
    this.decisions = new DecisionThread(options.analysisTimeoutMs ?? DEFAULT_ANALYSIS_TIMEOUT_MS);
    this.ctx = {
      dataDir: options.dataDir,
      home: options.home,
      issuer: options.issuer,
      now: options.now ?? (() => new Date()),
      manifests: () => this.config.manifests,
      policy: () => this.config.policy,
      analyze: async (program) => {
        const { agent } = manifestsFor(this.config.manifests, options.dataDir, program.manifests);
        const manifests =
          agent === undefined ? this.config.manifestsSha256 : `${this.config.manifestsSha256}+${agent.sha256}`;
        return this.facts.facts(program, { manifests, analyzer: this.analyzerVersion }, (p) =>
          this.pool.analyze(p, agent),
        );
      },
      // Submissions and checks: facts as above, then the decision and the receipt's signature on
      // the decision thread, so that the event loop does HTTP, auth and the store.
      evaluate: async (program, policy, order, read) =>
        this.decisions.evaluate(await read(await this.ctx.analyze(program)), policy, this.config.manifests, order),
      keys: cachedKeyStore(fileKeyStore(options.dataDir)),
      redemptions: store,
      store: async () => store,
      rememberedRules: () => store.listRememberedRules(),
      previews: {
        // A preview reads with the user's credential: an OAuth renewal it makes is audited as the runner's are.
        connector: () =>
          connectorContext(options.dataDir, {
            now: this.ctx.now,
            audit: async (refresh) =>
              void (await store.recordAudit({ type: "credential_refreshed", actor: "authority", ...refresh })),
          }),
        timeoutMs: options.previewTimeoutMs ?? PREVIEW_TIMEOUT_MS,
      },
    };
  }

  /** The state with its analysis threads not yet started (the pool's `warm`). */
  static open(options: StateOptions, store: Store): AuthorityState {
    const config = readConfig(options);
    const pool = AnalysisPool.create({
      manifests: config.manifests,
      timeoutMs: options.analysisTimeoutMs ?? DEFAULT_ANALYSIS_TIMEOUT_MS,
      codeCacheDir: join(options.dataDir, "cache"),
      ...(options.poolSize === undefined ? {} : { size: options.poolSize }),
    });
    return new AuthorityState(options, store, pool, config);
  }

  /**
   * Re-read manifests and policy and put them in force, with a `policy_reloaded` audit entry either
   * way. A configuration that does not load (or whose analysis threads cannot start) changes
   * nothing: the old one stays in force, and the answer and the audit say why. The pool's threads
   * switch first, so that no program is analyzed against other manifests than the policy sees.
   */
  async reload(actor: string): Promise<ReloadResult> {
    let next: ReturnType<typeof readConfig>;
    try {
      next = readConfig(this.options);
      if (next.manifestsSha256 !== this.config.manifestsSha256) await this.pool.setManifests(next.manifests);
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      await this.store.recordAudit({ type: "policy_reloaded", actor, ok: false, error });
      return { ok: false, error, policy_sha256: this.config.policy.sha256 };
    }
    await this.store.recordAudit({ type: "policy_reloaded", actor, ok: true, policy_sha256: next.policy.sha256 });
    this.config = next;
    return { ok: true, policy_sha256: next.policy.sha256, manifests_sha256: next.manifestsSha256 };
  }

  async close(): Promise<void> {
    await this.decisions.close();
    await this.pool.close();
  }
}
