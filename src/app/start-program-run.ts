import { jwks, verifyAndRedeemReceipt, type VerifiedReceipt } from "../receipt/index.js";
import type { AppContext } from "./context.js";

/**
 * The one way a run starts: verify the receipt against this authority's keys, the exact bytes
 * about to run and the agent manifests the run holds (`agentManifests`: the hash of
 * manifestsFor(...).agent, absent when it holds none), then redeem it (once, across every runner
 * sharing the redemption store).
 */
export async function startProgramRun(
  ctx: AppContext,
  token: string,
  programBytes: Uint8Array,
  agentManifests?: string,
): Promise<VerifiedReceipt> {
  const now = ctx.now();
  const keyring = await ctx.keys.keyring(now);
  const opts = {
    jwks: jwks(keyring, now),
    issuer: ctx.issuer,
    programBytes,
    now,
    ...(agentManifests === undefined ? {} : { agentManifests }),
  };
  return verifyAndRedeemReceipt(token, opts, ctx.redemptions);
}
