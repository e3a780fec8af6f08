import { CountersignError } from "../model/index.js";
import type { AppContext } from "./context.js";
import { notFound } from "./not-found.js";

/**
 * A runner redeems a receipt before it runs the program: exactly once across every process
 * sharing the store. Any later attempt is refused (receipt_invalid, `details.outcome` says why).
 * With `token`, only the receipt of one of that submitter's requests: another's is not found.
 */
export async function redeemReceipt(ctx: AppContext, jti: string, exp: number, token?: string): Promise<void> {
  const outcome = await (await ctx.store()).redeemReceipt(jti, exp, token);
  if (outcome === "redeemed") return;
  if (outcome === "unknown") throw notFound("receipt", jti);
  const why = {
    expired: "it has expired",
    already_redeemed: "it was redeemed already",
    request_already_run: "its request has run with another receipt",
  }[outcome];
  throw new CountersignError("receipt_invalid", "authority", `receipt ${jti} cannot be redeemed: ${why}`, {
    details: { reason: outcome === "expired" ? "expired" : "replayed", outcome },
  });
}
