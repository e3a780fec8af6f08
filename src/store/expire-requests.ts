import type { Change, StoreContext } from "./change.js";
import { change } from "./change.js";

/**
 * Expire pending requests whose deadline has passed, with an audit entry and an event each.
 * `only` limits it to one request (a decision checks its own request first, so that a deadline
 * holds even between sweeps).
 */
export async function expireWithin(c: Change, only?: string): Promise<string[]> {
  const filter = only === undefined ? "" : " AND id = ?";
  const rows = await c.tx.all(
    `UPDATE requests SET status = 'expired', decided_at = ? WHERE status = 'pending' AND deadline_at <= ?${filter} RETURNING id, seq, deadline_at`,
    only === undefined ? [c.now, c.now] : [c.now, c.now, only],
  );
  rows.sort((a, b) => Number(a.seq) - Number(b.seq));
  for (const row of rows) {
    const entry = await c.audit({
      type: "expired",
      request_id: String(row.id),
      actor: "authority",
      details: { deadline_at: Number(row.deadline_at) },
    });
    await c.event(entry, "expired", "expired");
  }
  return rows.map((r) => String(r.id));
}

/** The sweep the authority runs on a timer: a cheap read first, a write only when something is due. */
export async function expireDue(ctx: StoreContext): Promise<string[]> {
  const now = ctx.now();
  const due = await ctx.driver.read((q) =>
    q.all("SELECT id FROM requests WHERE status = 'pending' AND deadline_at <= ? LIMIT 1", [now]),
  );
  if (due.length === 0) return [];
  return change(ctx, (c) => expireWithin(c));
}
