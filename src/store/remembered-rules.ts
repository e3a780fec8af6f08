import type { Json } from "../model/index.js";
import { change, DURABLE, type StoreContext } from "./change.js";

export interface StoredRule {
  id: string;
  op: string;
  rule: Record<string, Json>;
  request_id: string; // the approval that saved it
  created_at: number;
}

/** Rules saved by "approve and remember" and not forgotten, oldest first. */
export async function listRememberedRules(ctx: StoreContext): Promise<StoredRule[]> {
  const rows = await ctx.driver.read((q) =>
    q.all("SELECT id, op, rule, request_id, created_at FROM remembered_rules WHERE forgotten_at IS NULL ORDER BY created_at, id"),
  );
  return rows.map((r) => ({
    id: String(r.id),
    op: String(r.op),
    rule: JSON.parse(String(r.rule)) as Record<string, Json>,
    request_id: String(r.request_id),
    created_at: Number(r.created_at),
  }));
}

/** `policy forget RULE_ID`: the rule stops applying; the row stays for the record. */
export async function forgetRule(ctx: StoreContext, id: string, actor: string): Promise<boolean> {
  return change(ctx, async (c) => {
    const changed = await c.tx.run("UPDATE remembered_rules SET forgotten_at = ? WHERE id = ? AND forgotten_at IS NULL", [c.now, id]);
    if (changed === 1) await c.audit({ type: "rule_forgotten", request_id: null, actor, details: { rule: id } });
    return changed === 1;
  }, DURABLE);
}
