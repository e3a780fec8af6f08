import { PersonDecision, type StoredRequest } from "../model/index.js";
import { change, type CheckpointSigner, type StoreContext } from "./change.js";
import { expireWithin } from "./expire-requests.js";
import { parseInput } from "./parse-input.js";
import { loadRequest, statusOf } from "./request-row.js";

/**
 * `changed: false`: the same decision was already recorded (idempotent, the first one stands).
 * `conflict`: the request is no longer pending and was decided differently, expired or withdrawn.
 */
export type DecideResult =
  | { ok: true; changed: boolean; request: StoredRequest }
  | { ok: false; reason: "not_found" }
  | { ok: false; reason: "conflict"; request: StoredRequest };

/**
 * A person's decision, recorded exactly once: a conditional update on the pending status, in the
 * transaction that appends its audit entry (and saves the remembered rules, for approved_remember)
 * and, with `checkpoint`, the signed head it leaves the chain at.
 */
export async function decideRequest(
  ctx: StoreContext,
  id: string,
  raw: PersonDecision,
  checkpoint?: CheckpointSigner,
): Promise<DecideResult> {
  const decision = parseInput(PersonDecision, raw, "decision");
  const reason = decision.kind === "rejected" ? decision.reason : null;
  const feedback = decision.kind === "request_more" ? decision.feedback : null;
  return change(
    ctx,
    async (c) => {
      await expireWithin(c, id);
      const status = statusOf(decision.kind);
      // An approval that binds shown content narrows the grants the receipt will carry.
      const bound = "bound" in decision ? decision.bound : undefined;
      const changed = await c.tx.run(
        "UPDATE requests SET status = ?, decision = ?, approver = ?, reason = ?, feedback = ?, decided_at = ?, policy = COALESCE(?, policy) WHERE id = ? AND status = 'pending'",
        [
          status,
          decision.kind,
          decision.approver,
          reason,
          feedback,
          c.now,
          bound === undefined ? null : JSON.stringify(bound.policy),
          id,
        ],
      );
      if (changed === 1) {
        const rules = decision.kind === "approved_remember" ? decision.rules : [];
        for (const rule of rules) {
          await c.tx.run(
            `INSERT INTO remembered_rules (id, request_id, op, rule, created_at, token, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)
           ON CONFLICT (id) DO UPDATE SET request_id = excluded.request_id, op = excluded.op, rule = excluded.rule,
             created_at = excluded.created_at, token = excluded.token, expires_at = excluded.expires_at, forgotten_at = NULL`,
            [rule.id, id, rule.op, JSON.stringify(rule.rule), c.now, rule.token, rule.expires_at],
          );
        }
        const entry = await c.audit({
          type: "decided",
          request_id: id,
          actor: decision.approver,
          details: {
            kind: decision.kind,
            ...(reason === null ? {} : { reason }),
            ...(feedback === null ? {} : { feedback }),
            ...(rules.length === 0 ? {} : { rules: rules.map((r) => r.id) }),
            ...(bound === undefined ? {} : { bound_sha256: bound.sha256 }),
          },
        });
        await c.event(entry, "resolved", status);
      }
      const request = await loadRequest(c.tx, id);
      if (request === null) return { ok: false, reason: "not_found" };
      if (changed === 1 || request.decision?.kind === decision.kind)
        return { ok: true, changed: changed === 1, request };
      return { ok: false, reason: "conflict", request };
    },
    checkpoint === undefined ? {} : { checkpoint },
  );
}
