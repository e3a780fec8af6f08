import { z } from "zod";
import { CLOCK_TOLERANCE_SECONDS } from "../model/index.js";
import { ReceiptRef } from "../model/index.js";
import { change, DURABLE, type Change, type StoreContext } from "./change.js";
import type { SqlValue } from "./driver.js";
import { parseInput } from "./parse-input.js";

export const ReceiptRecord = ReceiptRef.extend({ request_id: z.string().min(1) }).strict();
export type ReceiptRecord = z.infer<typeof ReceiptRecord>;

/**
 * Append a receipt's `receipt_issued` entry and answer its row for insertReceipts, which must
 * run in the same change; the caller checked that the request may have one.
 */
export async function receiptIssued(c: Change, requestId: string, receipt: ReceiptRef): Promise<SqlValue[]> {
  await c.audit({ type: "receipt_issued", request_id: requestId, actor: "authority", details: { exp: receipt.exp, jti: receipt.jti } });
  return [receipt.jti, requestId, receipt.exp, c.now];
}

/** The rows of receiptIssued in one statement (their requests are in already). */
export async function insertReceipts(c: Change, rows: SqlValue[][]): Promise<void> {
  await c.tx.insert("receipts (jti, request_id, exp, issued_at)", rows);
}

/** `already_run`: a receipt of this request was redeemed: one request is one run. */
export type RecordReceiptResult = { ok: true } | { ok: false; reason: "not_found" | "not_approved" | "already_run" };

/**
 * Record a signed receipt before it leaves the authority. Only an approved request gets one, and
 * none once the request has run; the `receipt_issued` entry commits with it, so no receipt is
 * handed out without its audit entry.
 */
export async function recordReceipt(ctx: StoreContext, raw: ReceiptRecord): Promise<RecordReceiptResult> {
  const receipt = parseInput(ReceiptRecord, raw, "receipt");
  return change(ctx, async (c) => {
    const request = (await c.tx.all("SELECT status FROM requests WHERE id = ?", [receipt.request_id]))[0];
    if (request === undefined) return { ok: false, reason: "not_found" };
    if (request.status !== "approved") return { ok: false, reason: "not_approved" };
    const run = await c.tx.all("SELECT jti FROM receipts WHERE request_id = ? AND redeemed_at IS NOT NULL", [receipt.request_id]);
    if (run.length > 0) return { ok: false, reason: "already_run" };
    await insertReceipts(c, [await receiptIssued(c, receipt.request_id, receipt)]);
    return { ok: true };
  });
}

/**
 * `unknown`: no receipt with this jti and exp was issued here. `expired`: past exp (clock
 * tolerance included). `already_redeemed`: this receipt ran. `request_already_run`: another
 * receipt of the same request ran.
 */
export type RedeemOutcome = "redeemed" | "unknown" | "expired" | "already_redeemed" | "request_already_run";

/**
 * Single use, across every process sharing the database: a conditional update that succeeds for
 * one caller only, in the transaction that records `redeemed` (or, for every refusal, `redeem_refused`).
 * `token`, when given, must be the submitter token of the receipt's request: another agent's
 * receipt is `unknown` to it.
 */
export async function redeemReceipt(ctx: StoreContext, jti: string, exp: number, token?: string): Promise<RedeemOutcome> {
  if (!ReceiptRef.safeParse({ jti, exp }).success) return "unknown";
  return change(ctx, async (c) => {
    const row = (await c.tx.all("SELECT r.request_id, r.exp, r.redeemed_at, q.token FROM receipts r JOIN requests q ON q.id = r.request_id WHERE r.jti = ?", [jti]))[0];
    const requestId = row === undefined ? null : String(row.request_id);
    let outcome: RedeemOutcome;
    if (row === undefined || Number(row.exp) !== exp || (token !== undefined && row.token !== token)) outcome = "unknown";
    else if (c.now > (exp + CLOCK_TOLERANCE_SECONDS) * 1000) outcome = "expired";
    else if (row.redeemed_at !== null) outcome = "already_redeemed";
    else {
      const changed = await c.tx.run(
        `UPDATE receipts SET redeemed_at = ? WHERE jti = ? AND redeemed_at IS NULL
           AND NOT EXISTS (SELECT 1 FROM receipts other WHERE other.request_id = receipts.request_id AND other.redeemed_at IS NOT NULL)`,
        [c.now, jti],
      );
      outcome = changed === 1 ? "redeemed" : "request_already_run";
    }
    const details: Record<string, string> = outcome === "redeemed" ? { jti } : { jti, outcome };
    await c.audit({ type: outcome === "redeemed" ? "redeemed" : "redeem_refused", request_id: requestId, actor: "runner", details });
    return outcome;
  }, DURABLE);
}
