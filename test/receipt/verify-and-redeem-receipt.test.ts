import { describe, expect, it } from "vitest";
import { CLOCK_TOLERANCE_SECONDS } from "../../src/model/receipt.js";
import { jwks } from "../../src/receipt/jwks.js";
import { MemoryRedemptionStore } from "../../src/receipt/redemption.js";
import { verifyAndRedeemReceipt } from "../../src/receipt/verify-and-redeem-receipt.js";
import { expectRefused, ISSUER, issue, keyringIn, NOW, NOW_S, PROGRAM } from "./fixtures.js";

describe("verifyAndRedeemReceipt", () => {
  it("starts one run per receipt: the second is refused as replayed", async () => {
    const keys = await keyringIn();
    const token = await issue(keys);
    const store = new MemoryRedemptionStore(() => NOW.getTime());
    const opts = { jwks: jwks(keys, NOW), issuer: ISSUER, programBytes: PROGRAM, now: NOW };
    const run = await verifyAndRedeemReceipt(token, opts, store);
    expect(run.claims.sub).toBe("req-1");
    const err = await expectRefused(() => verifyAndRedeemReceipt(token, opts, store), "receipt_invalid", "replayed");
    expect(err.message).toContain(run.claims.jti);
    // another receipt for the same request is its own run
    await expect(verifyAndRedeemReceipt(await issue(keys), opts, store)).resolves.toBeDefined();
  });

  it("redeems nothing for a receipt that fails verification", async () => {
    const keys = await keyringIn();
    const store = new MemoryRedemptionStore(() => NOW.getTime());
    const opts = { jwks: jwks(keys, NOW), issuer: ISSUER, programBytes: new Uint8Array([1]), now: NOW };
    const token = await issue(keys);
    await expectRefused(() => verifyAndRedeemReceipt(token, opts, store), "receipt_invalid", "program_mismatch");
    expect(store.size).toBe(0);
  });

  it("answers true exactly once per jti under concurrent redemption", async () => {
    const store = new MemoryRedemptionStore(() => NOW.getTime());
    const answers = await Promise.all(Array.from({ length: 20 }, () => store.redeem("same-jti", NOW_S + 300)));
    expect(answers.filter(Boolean)).toHaveLength(1);
  });
});

describe("MemoryRedemptionStore", () => {
  it("forgets a jti only after its receipt can no longer pass a verifier", async () => {
    let now = NOW.getTime();
    const store = new MemoryRedemptionStore(() => now);
    const exp = NOW_S + 300;
    expect(await store.redeem("j1", exp + CLOCK_TOLERANCE_SECONDS)).toBe(true);
    now = (exp + CLOCK_TOLERANCE_SECONDS) * 1000; // still inside the tolerance window: must remember
    expect(await store.redeem("j1", exp + CLOCK_TOLERANCE_SECONDS)).toBe(false);
    now = (exp + CLOCK_TOLERANCE_SECONDS + 120) * 1000;
    await store.redeem("j2", NOW_S + 10_000);
    expect(store.size).toBe(1); // j1 pruned, j2 kept
  });
});
