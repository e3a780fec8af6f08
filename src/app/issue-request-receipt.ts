import { CountersignError } from "../model/errors.js";
import { issueReceipt } from "../receipt/index.js";
import type { AppContext } from "./context.js";
import { findRequest } from "./find-request.js";

/**
 * Sign the receipt for an approved request: auto_approved by the policy, or approved by a person.
 * It carries the request's grants (the facts themselves, narrowed by guarantees and guards).
 */
export async function issueRequestReceipt(ctx: AppContext, id: string, lifetimeSeconds?: number): Promise<string> {
  const request = await findRequest(ctx, id);
  const human = request.human;
  const approved = request.decision.kind === "auto_approved" || human?.kind === "approved_once" || human?.kind === "approved_remember";
  if (!approved) {
    const state = human?.kind ?? (request.decision.kind === "ask" ? "waiting for a decision" : request.decision.kind);
    throw new CountersignError("approval_denied", "authority", `request ${id} is not approved (${state}): no receipt`, { requestId: id });
  }
  const now = ctx.now();
  return issueReceipt(
    {
      requestId: id,
      program: request.program,
      decision: human?.kind ?? "auto_approved",
      policySha256: request.decision.policy.sha256,
      grants: request.decision.grants,
      across: request.decision.across,
      ...(human === undefined ? {} : { approver: human.approver }),
      ...(lifetimeSeconds === undefined ? {} : { lifetimeSeconds }),
      issuer: ctx.issuer,
    },
    await ctx.keys.keyring(now),
    now,
  );
}
