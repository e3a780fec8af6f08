import { z } from "zod";
import { CLOCK_TOLERANCE_SECONDS, StoredReceipt } from "../model/index.js";
import { ReceiptRef } from "../model/index.js";
import { change, DURABLE, type Change, type StoreContext } from "./change.js";
import type { Row, SqlValue } from "./driver.js";
import { parseInput } from "./parse-input.js";

export const ReceiptRecord = StoredReceipt.extend({ request_id: z.string().min(1) }).strict();
export type ReceiptRecord = z.infer<typeof ReceiptRecord>;

/**
 * How many receipts one approval may have issued: a new one only after the last expired unused,
 * so a submitter cannot grow the store by reading its decision again and again.
 */
export const MAX_RECEIPTS_PER_REQUEST = 3;

/**
 * Append a receipt's `receipt_issued` entry and answer its row for insertReceipts, which must
 * run in the same change; the caller checked that the request may have one.
 */
export async function receiptIssued(c: Change, requestId: string, receipt: StoredReceipt): Promise<SqlValue[]> {
  await c.audit({
    type: "receipt_issued",
    request_id: requestId,
    actor: "authority",
    details: { exp: receipt.exp, jti: receipt.jti },
  });
  return [receipt.jti, requestId, receipt.exp, c.now, receipt.token];
}

/** The rows of receiptIssued in one statement (their requests are in already). */
export async function insertReceipts(c: Change, rows: SqlValue[][]): Promise<void> {
  await c.tx.insert("receipts (jti, request_id, exp, issued_at, token)", rows);
}

/**
 * What a read of an approved request's decision gets: the receipt it has, while valid; `issue`: a
 * new one may be signed; nothing once it ran (`already_run`) or its receipts all expired unused
 * (`used_up`).
 */
export type ReceiptToHandOut =
  | { kind: "valid"; token: string }
  | { kind: "issue" }
  | { kind: "already_run" }
  | { kind: "used_up" };

const RECEIPTS_OF_REQUEST = "SELECT exp, redeemed_at, token FROM receipts WHERE request_id = ?";

function receiptToHandOutOf(receipts: Row[], now: number): ReceiptToHandOut {
  if (receipts.some((r) => r.redeemed_at !== null)) return { kind: "already_run" };
  // Receipts issued before their text was kept (token null) count, but cannot be handed out again.
  const valid = receipts
    .filter((r) => r.token !== null && Number(r.exp) * 1000 > now)
    .sort((a, b) => Number(b.exp) - Number(a.exp))[0];
  if (valid !== undefined) return { kind: "valid", token: String(valid.token) };
  return receipts.length >= MAX_RECEIPTS_PER_REQUEST ? { kind: "used_up" } : { kind: "issue" };
}

/**
 * Read only: the receipt of `requestId` to hand out, or whether one may be issued (the request's own state is the
 * caller's to check).
 */
export async function receiptToHandOut(ctx: StoreContext, requestId: string): Promise<ReceiptToHandOut> {
  const receipts = await ctx.driver.read((q) => q.all(RECEIPTS_OF_REQUEST, [requestId]));
  return receiptToHandOutOf(receipts, ctx.now());
}

/**
 * `token`: the receipt to hand out, the one recorded or one a concurrent reader recorded first.
 * `already_run`: a receipt of this request was redeemed: one request is one run. `used_up`: its
 * receipts all expired unused: the request needs a new approval.
 */
export type RecordReceiptResult =
  | { ok: true; token: string }
  | { ok: false; reason: "not_found" | "not_approved" | "already_run" | "used_up" };

/**
 * Record a signed receipt before it leaves the authority. Only an approved request gets one, none
 * once the request has run, and none while another of it is valid: that one is answered instead,
 * so readers racing (in any process: the change holds the chain head's lock) all get the same
 * receipt. The `receipt_issued` entry commits with it, so no receipt is handed out without its
 * audit entry.
 */
export async function recordReceipt(ctx: StoreContext, raw: ReceiptRecord): Promise<RecordReceiptResult> {
  const receipt = parseInput(ReceiptRecord, raw, "receipt");
  return change(ctx, async (c) => {
    const request = (await c.tx.all("SELECT status FROM requests WHERE id = ?", [receipt.request_id]))[0];
    if (request === undefined) return { ok: false, reason: "not_found" };
    if (request.status !== "approved") return { ok: false, reason: "not_approved" };
    const handOut = receiptToHandOutOf(await c.tx.all(RECEIPTS_OF_REQUEST, [receipt.request_id]), c.now);
    if (handOut.kind === "valid") return { ok: true, token: handOut.token };
    if (handOut.kind !== "issue") return { ok: false, reason: handOut.kind };
    await insertReceipts(c, [await receiptIssued(c, receipt.request_id, receipt)]);
    return { ok: true, token: receipt.token };
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
export async function redeemReceipt(
  ctx: StoreContext,
  jti: string,
  exp: number,
  token?: string,
): Promise<RedeemOutcome> {
  if (!ReceiptRef.safeParse({ jti, exp }).success) return "unknown";
  return change(
    ctx,
    async (c) => {
      const row = (
        await c.tx.all(
          "SELECT r.request_id, r.exp, r.redeemed_at, q.token FROM receipts r JOIN requests q ON q.id = r.request_id WHERE r.jti = ?",
          [jti],
        )
      )[0];
      const requestId = row === undefined ? null : String(row.request_id);
      let outcome: RedeemOutcome;
      if (row === undefined || Number(row.exp) !== exp || (token !== undefined && row.token !== token))
        outcome = "unknown";
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
      await c.audit({
        type: outcome === "redeemed" ? "redeemed" : "redeem_refused",
        request_id: requestId,
        actor: "runner",
        details,
      });
      return outcome;
    },
    DURABLE,
  );
}
