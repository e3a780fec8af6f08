import { CountersignError, type StoredRequest } from "../model/index.js";
import { checkpointKeys, verifyCheckpoint, type SignedCheckpoint } from "../receipt/index.js";
import type { Store } from "../store/index.js";
import { checkpointAuditChain } from "./checkpoint-audit-chain.js";
import type { AppContext } from "./context.js";

/**
 * Refuse to sign for an approval the audit chain does not vouch for: the request's last `decided`
 * entry must lie in a stretch of the chain between two checkpoints signed with the authority's
 * key (or the chain's start and one), every entry of that stretch verifying, and it must say what
 * the request row says (the same decision, by the same approver). So a request flipped to approved
 * in the database directly (no entry, an entry changed, or a chain rewritten after it) gets no
 * receipt. Only that stretch is read: checkpoints are made at every decision.
 */
export async function checkDecisionInChain(ctx: AppContext, store: Store, request: StoredRequest): Promise<void> {
  const decision = request.decision;
  if (decision === null) throw notInChain(request.id, "it records no decision", false);
  const id = await store.decisionEntryId(request.id);
  if (id === undefined) throw notInChain(request.id, "no audit entry records its decision", false);
  const keyring = await ctx.keys.keyring(ctx.now());
  const kids = keyring.keys.map((k) => k.kid);
  let around = await store.checkpointsAround(id, kids);
  // A decision made by another authority on this database is under its checkpoints, not ours (nor
  // is one appended behind the authorities' backs): sign the head now, which holds the stretch since
  // our last checkpoint to the chain first, as the sweep would within a second.
  if (around.holding === undefined) {
    await checkpointAuditChain(ctx);
    around = await store.checkpointsAround(id, kids);
  }
  if (around.holding === undefined)
    throw notInChain(request.id, `its decision (audit entry ${id}) is under no signed checkpoint yet`, true);
  const keys = checkpointKeys(keyring.keys);
  const verified = (jws: string): SignedCheckpoint => {
    try {
      return verifyCheckpoint(jws, keys);
    } catch (err) {
      throw notInChain(
        request.id,
        `a checkpoint around its decision's audit entry ${id} is forged: ${(err as Error).message}`,
        false,
      );
    }
  };
  const from = around.before === undefined ? undefined : verified(around.before);
  const to = verified(around.holding);
  const stretch = await store.entryBetweenCheckpoints(id, from, { ...to, from: "database" });
  if (!stretch.ok)
    throw notInChain(
      request.id,
      `its decision's audit entry ${id} is not in the verified chain: ${stretch.message}`,
      false,
    );
  const { entry } = stretch;
  const approver = decision.approver ?? "policy";
  if (entry.request_id !== request.id || entry.details.kind !== decision.kind || entry.actor !== approver) {
    throw notInChain(
      request.id,
      `its audit entry ${id} records ${String(entry.details.kind)} by ${String(entry.actor)}, the request says ${decision.kind} by ${approver}`,
      false,
    );
  }
}

/** The refusal, with the reason code a caller matches on: `decision_not_in_audit_chain`. */
function notInChain(requestId: string, why: string, retriable: boolean): CountersignError {
  return new CountersignError("approval_denied", "authority", `request ${requestId} gets no receipt: ${why}`, {
    requestId,
    retriable,
    details: { reason: "decision_not_in_audit_chain" },
  });
}
