import { CountersignError } from "../model/index.js";
import { MAX_RECEIPTS_PER_REQUEST } from "../store/index.js";
import type { AppContext } from "./context.js";
import { checkDecisionInChain } from "./decision-in-chain.js";
import { conflict, notFound } from "./not-found.js";
import { signReceipt } from "./sign-receipt.js";

/**
 * The receipt of an approved request (auto_approved by the policy, or approved by a person).
 * `token` (the submitter's token name), when given, must be the one that submitted the request.
 * A request has one valid receipt at a time: every read gets the same one until it expires; a new
 * one is signed, and recorded with its audit entry before it is returned, only after the last
 * expired unused, at most MAX_RECEIPTS_PER_REQUEST in all. One request is one run: once a
 * receipt of it was redeemed, none is handed out. Nothing is signed for an approval the signed
 * audit chain does not hold (checkDecisionInChain); that refusal is audited.
 */
export async function issueRequestReceipt(
  ctx: AppContext,
  id: string,
  options: { token?: string; lifetimeSeconds?: number } = {},
): Promise<string> {
  const store = await ctx.store();
  const request = await store.get(id);
  if (request === null || (options.token !== undefined && request.token !== options.token))
    throw notFound("request", id);
  if (request.status !== "approved" || request.decision === null) {
    const state = request.status === "pending" ? "waiting for a decision" : (request.decision?.kind ?? request.status);
    throw new CountersignError("approval_denied", "authority", `request ${id} is not approved (${state}): no receipt`, {
      requestId: id,
      details: { status: request.status },
    });
  }
  const handOut = await store.receiptToHandOut(id);
  if (handOut.kind === "valid") return handOut.token;
  if (handOut.kind !== "issue") throw noReceipt(id, handOut.kind);
  try {
    await checkDecisionInChain(ctx, store, request);
  } catch (err) {
    if (err instanceof CountersignError)
      await store.recordAudit({ type: "receipt_refused", request_id: id, actor: "authority", reason: err.message });
    throw err;
  }
  const receipt = await signReceipt(ctx, { ...request, decision: request.decision }, options.lifetimeSeconds);
  const recorded = await store.recordReceipt({
    jti: receipt.jti,
    exp: receipt.exp,
    request_id: id,
    token: receipt.token,
  });
  if (recorded.ok) return recorded.token;
  if (recorded.reason === "not_found") throw notFound("request", id);
  if (recorded.reason === "not_approved") throw conflict(id, `request ${id} is not approved: no receipt`);
  throw noReceipt(id, recorded.reason);
}

function noReceipt(id: string, reason: "already_run" | "used_up"): CountersignError {
  if (reason === "already_run") return conflict(id, `request ${id} has run: its receipt was redeemed`);
  return new CountersignError(
    "approval_denied",
    "authority",
    `request ${id}: its approval's ${MAX_RECEIPTS_PER_REQUEST} receipts all expired unused; submit the program again for a new approval`,
    { requestId: id, details: { reason: "receipts_used_up", max_receipts: MAX_RECEIPTS_PER_REQUEST } },
  );
}
