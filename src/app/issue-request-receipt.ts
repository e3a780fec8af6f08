import { CountersignError } from "../model/index.js";
import type { AppContext } from "./context.js";
import { conflict, notFound } from "./not-found.js";
import { signReceipt } from "./sign-receipt.js";

/**
 * A receipt for an approved request (auto_approved by the policy, or approved by a person),
 * recorded with its audit entry before it is returned. `token` (the submitter's token name),
 * when given, must be the one that submitted the request. One request is one run: once a receipt
 * of it was redeemed, no other is issued.
 */
export async function issueRequestReceipt(ctx: AppContext, id: string, options: { token?: string; lifetimeSeconds?: number } = {}): Promise<string> {
  const store = await ctx.store();
  const request = await store.get(id);
  if (request === null || (options.token !== undefined && request.token !== options.token)) throw notFound("request", id);
  if (request.status !== "approved" || request.decision === null) {
    const state = request.status === "pending" ? "waiting for a decision" : (request.decision?.kind ?? request.status);
    throw new CountersignError("approval_denied", "authority", `request ${id} is not approved (${state}): no receipt`, { requestId: id, details: { status: request.status } });
  }
  const receipt = await signReceipt(ctx, { ...request, decision: request.decision }, options.lifetimeSeconds);
  const recorded = await store.recordReceipt({ jti: receipt.jti, exp: receipt.exp, request_id: id });
  if (!recorded.ok) {
    if (recorded.reason === "not_found") throw notFound("request", id);
    throw conflict(id, recorded.reason === "already_run" ? `request ${id} has run: its receipt was redeemed` : `request ${id} is not approved: no receipt`);
  }
  return receipt.token;
}
