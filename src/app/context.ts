import type { BudgetOptions } from "../analyze/index.js";
import type { ConnectorContext } from "../connector/index.js";
import type { ManifestSet } from "../manifest/index.js";
import type { AgentManifestSource, Facts } from "../model/index.js";
import type { Policy } from "../policy/index.js";
import type { KeyStore, RedemptionStore } from "../receipt/index.js";
import type { Store, StoredRule } from "../store/index.js";
import type { ProgramDecision, ReceiptOrder } from "./decide-and-sign.js";

/**
 * A program as submitted: its exact bytes (a string: its UTF-8 encoding) and the name it goes by (messages, the
 * receipt).
 */
export interface ProgramInput {
  source: Uint8Array | string;
  entry: string;
  budget?: BudgetOptions; // limits of this analysis, over the analyzer's defaults
  manifests?: AgentManifestSource[]; // action manifests the agent submitted with it (see manifestsFor)
}

/** What previews at approval time are fetched with: the connector host with the user's connections. */
export interface PreviewHost {
  connector: () => ConnectorContext; // read for each showing: the credential in force then
  timeoutMs: number; // the longest a showing waits for a preview (at most the connector's PREVIEW_TIMEOUT_MS)
}

/**
 * What every use case runs with, passed in explicitly: nothing here is read from the process's
 * environment or the real clock behind a use case's back. The CLI builds one per command
 * (app/local-context.ts), the authority one per process.
 */
export interface AppContext {
  dataDir: string;
  home: string; // what `~` means in the user's policy
  issuer: string; // the authority receipts are signed as
  now: () => Date;
  manifests: () => ManifestSet;
  policy: () => Policy; // the policy files in force (remembered rules come from the store)
  /** The facts of a program: analyzed in process (CLI) or by the authority's worker pool. */
  analyze: (program: ProgramInput) => Promise<Facts>;
  /**
   * The authority's: facts (its analysis threads), decision and ordered receipt (its decision
   * thread), off the event loop. `read` gives the facts the policy decides over (what the agent
   * was given marks them). Without it checkProgram analyzes through `analyze` and decides and signs in process.
   */
  evaluate?: (
    program: ProgramInput,
    policy: Policy,
    order: ReceiptOrder | undefined,
    read: (facts: Facts) => Promise<Facts>,
  ) => Promise<ProgramDecision>;
  keys: KeyStore;
  redemptions: RedemptionStore;
  store: () => Promise<Store>; // opened on first use
  /** Rules saved by "approve and remember" and not forgotten: part of the policy in force. */
  rememberedRules: () => Promise<StoredRule[]>;
  /** The authority's: without it a review shows no previews (nothing is fetched). */
  previews?: PreviewHost;
}
