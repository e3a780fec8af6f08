import type { PolicyDecision } from "../model/index.js";
import type { Facts } from "../model/index.js";
import type { RecordedDecision, ReceiptRef } from "../model/index.js";
import { issueReceiptRecord, type IssueInput } from "../receipt/index.js";
import type { AppContext } from "./context.js";

export interface Approved {
  id: string;
  facts: Facts;
  policy: PolicyDecision;
  decision: Pick<RecordedDecision, "kind" | "approver">;
}

/**
 * Sign the receipt of an approved request with the active key: the request's grants (the facts
 * themselves, narrowed by guarantees and guards). Answers the token with the jti and exp the
 * store records before the token leaves the authority.
 */
export async function signReceipt(
  ctx: AppContext,
  request: Approved,
  lifetimeSeconds?: number,
): Promise<{ token: string } & ReceiptRef> {
  const now = ctx.now();
  return issueReceiptRecord(receiptInput(request, ctx.issuer, lifetimeSeconds), await ctx.keys.keyring(now), now);
}

/** What the receipt of `request` claims (pure: the authority's decision thread signs with it too). */
export function receiptInput(request: Approved, issuer: string, lifetimeSeconds?: number): IssueInput {
  return {
    requestId: request.id,
    program: request.facts.program,
    decision: request.decision.kind,
    policySha256: request.policy.policy.sha256,
    grants: request.policy.grants,
    across: request.policy.across,
    ...(request.decision.approver === null ? {} : { approver: request.decision.approver }),
    ...(request.facts.agentManifests === undefined
      ? {}
      : { agentManifestsSha256: request.facts.agentManifests.sha256 }),
    ...(lifetimeSeconds === undefined ? {} : { lifetimeSeconds }),
    issuer,
  };
}
