import type { StoredRequest } from "../model/index.js";
import { change, type StoreContext } from "./change.js";
import { expireWithin } from "./expire-requests.js";
import { loadRequest } from "./request-row.js";

/** `not_found` also when the request belongs to another token: a submitter learns nothing of others' requests. */
export type WithdrawResult =
  | { ok: true; request: StoredRequest }
  | { ok: false; reason: "not_found" }
  | { ok: false; reason: "conflict"; request: StoredRequest };

/** The submitter takes back its own pending request. */
export async function withdrawRequest(ctx: StoreContext, id: string, token: string): Promise<WithdrawResult> {
  return change(ctx, async (c) => {
    await expireWithin(c, id);
    const changed = await c.tx.run(
      "UPDATE requests SET status = 'withdrawn', decided_at = ? WHERE id = ? AND token = ? AND status = 'pending'",
      [c.now, id, token],
    );
    if (changed === 1)
      await c.event(
        await c.audit({ type: "withdrawn", request_id: id, actor: token, details: {} }),
        "resolved",
        "withdrawn",
      );
    const request = await loadRequest(c.tx, id);
    if (request === null || request.token !== token) return { ok: false, reason: "not_found" };
    return changed === 1 ? { ok: true, request } : { ok: false, reason: "conflict", request };
  });
}
