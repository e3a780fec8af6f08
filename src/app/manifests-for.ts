import { agentAllowlists } from "../config/index.js";
import { agentManifestsError, checkAgentManifests, type ManifestSet } from "../manifest/index.js";
import type { AgentManifestSource } from "../model/index.js";

/**
 * The manifests a program is analyzed (and later run) with: the trusted set alone, or with the
 * agent manifests it was submitted with beside it, checked against the trusted set and the
 * allowlists of the user's connections. Invalid ones are analysis_rejected with every problem
 * (exit 1, HTTP 422). This is the set a runner hands to callAgentAction, and whose agent hash
 * it passes to receipt verification.
 */
export function manifestsFor(
  trusted: ManifestSet,
  dataDir: string,
  sources: readonly AgentManifestSource[] | undefined,
): ManifestSet {
  if (sources === undefined || sources.length === 0) return trusted;
  const { set, errors } = checkAgentManifests(trusted, sources, agentAllowlists(trusted, dataDir));
  if (set === undefined) throw agentManifestsError(errors);
  return set;
}
