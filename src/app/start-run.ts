import { jwks, startRun, type VerifiedReceipt } from "../receipt/index.js";
import type { AppContext } from "./context.js";

/**
 * The one way a run starts: verify the receipt against this authority's keys and the exact bytes
 * about to run, then redeem it (once, across every runner sharing the redemption store).
 */
export async function startProgramRun(ctx: AppContext, token: string, programBytes: Uint8Array): Promise<VerifiedReceipt> {
  const now = ctx.now();
  const keyring = await ctx.keys.keyring(now);
  return startRun(token, { jwks: jwks(keyring, now), issuer: ctx.issuer, programBytes, now }, ctx.redemptions);
}
