import { agentAllowlists } from "../config/index.js";
import { checkStoredAgentManifests, formatManifestError, type ManifestSet } from "../manifest/index.js";
import type { StoredRequest } from "../model/index.js";
import type { AppContext } from "./context.js";

/**
 * The manifests a stored request is previewed with: the trusted set in force, and beside it the
 * agent manifests kept with the request (the store checked they hash to what its facts and so its
 * receipt record), checked again by the rules they were submitted under against the manifests
 * and connections in force now. `problem`: why its agent actions cannot be had now (the set is then
 * the trusted one alone).
 */
export function requestManifests(ctx: AppContext, request: StoredRequest): { set: ManifestSet; problem?: string } {
  const trusted = ctx.manifests();
  const recorded = request.facts.agentManifests?.sha256;
  if (recorded === undefined) return { set: trusted };
  if (request.agent_manifests === undefined)
    return {
      set: trusted,
      problem: "the agent manifests were not kept with this request (it was submitted before countersign kept them)",
    };
  try {
    const { set, errors } = checkStoredAgentManifests(
      trusted,
      request.agent_manifests,
      agentAllowlists(trusted, ctx.dataDir),
    );
    if (set === undefined)
      return {
        set: trusted,
        problem: `the agent manifests no longer pass the checks with the manifests and connections in force (${formatManifestError(errors[0]!)})`,
      };
    if (set.agent?.sha256 !== recorded)
      return {
        set: trusted,
        problem: `the agent manifests kept do not hash to ${recorded}, the hash the facts record`,
      };
    return { set };
  } catch (err) {
    // the connections file cannot be read now
    return { set: trusted, problem: err instanceof Error ? err.message : String(err) };
  }
}
