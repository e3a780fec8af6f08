import { violation } from "./refuse.js";
import type { VerifiedReceipt } from "./verified-receipt.js";

/**
 * An agent action may run only under a receipt issued for exactly the agent manifests it comes
 * from (their hash): an action the person never saw, or one changed since, is refused before any
 * of its steps. Its steps are then ordinary calls, each checked by checkCall.
 */
export function checkAgentManifestsApproved(verified: VerifiedReceipt, op: string, agentManifests: string): void {
  const approved = verified.claims.agent_manifests?.sha256;
  if (approved === agentManifests) return;
  throw violation(
    "manifests_mismatch",
    op,
    approved === undefined
      ? "the receipt approves no agent action"
      : `the receipt approves agent manifests ${approved}, not ${agentManifests}`,
  );
}
