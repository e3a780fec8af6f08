import type { Analyzer } from "../analyze/index.js";
import type { ManifestSet } from "../manifest/index.js";
import type { RequestStore } from "../model/request.js";
import type { Policy } from "../policy/index.js";
import type { KeyStore, RedemptionStore } from "../receipt/index.js";

/**
 * What every use case runs with, passed in explicitly: nothing here is read from the process's
 * environment or the real clock behind a use case's back. The CLI builds one per command
 * (app/local-context.ts); the authority, the runner and the MCP server will build theirs.
 */
export interface AppContext {
  dataDir: string;
  home: string; // what `~` means in the user's policy
  issuer: string; // the authority receipts are signed as
  now: () => Date;
  newId: () => string; // request ids
  manifests: () => ManifestSet;
  policy: () => Policy;
  analyzer: () => Promise<Analyzer>; // one long-lived analyzer per context, made on first use (it loads the compiler)
  keys: KeyStore;
  redemptions: RedemptionStore;
  requests: RequestStore;
}
