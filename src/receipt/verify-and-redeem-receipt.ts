import { CLOCK_TOLERANCE_SECONDS } from "../model/index.js";
import type { RedemptionStore } from "./redemption.js";
import { invalid } from "./refuse.js";
import type { VerifiedReceipt } from "./verified-receipt.js";
import { verifyReceipt, type VerifyOptions } from "./verify.js";

/**
 * Verify a receipt, then redeem its jti: the one way a run may start. Verification comes first,
 * so that forged tokens cannot fill the store; a receipt already redeemed is refused as `replayed`.
 */
export async function verifyAndRedeemReceipt(
  token: string,
  opts: VerifyOptions,
  store: RedemptionStore,
): Promise<VerifiedReceipt> {
  const verified = await verifyReceipt(token, opts);
  const { jti, exp } = verified.claims;
  if (!(await store.redeem(jti, exp + CLOCK_TOLERANCE_SECONDS)))
    throw invalid("replayed", `receipt ${jti} has already started a run`);
  return verified;
}
