import { deepFreeze, type Json } from "../model/index.js";
import { change, DURABLE, type StoreContext } from "./change.js";

export interface StoredRule {
  id: string;
  op: string;
  rule: Record<string, Json>;
  request_id: string; // the approval that saved it
  created_at: number;
  token: string | null; // the one submitter token it applies to; null: every agent
  expires_at: number | null; // null: until forgotten
}

/**
 * Rules saved by "approve and remember" that apply now (neither forgotten nor past their
 * lifetime), oldest first. The rules not forgotten are read once per change to the database
 * (ReadCache; frozen, as every caller shares them), their lifetime checked at each call.
 */
export async function listRememberedRules(ctx: StoreContext): Promise<StoredRule[]> {
  const now = ctx.now();
  const rules = await ctx.reads.read("remembered_rules", () => readRules(ctx));
  return rules.filter((r) => r.expires_at === null || r.expires_at > now);
}

async function readRules(ctx: StoreContext): Promise<readonly StoredRule[]> {
  const rows = await ctx.driver.read((q) =>
    q.all(
      "SELECT id, op, rule, request_id, created_at, token, expires_at FROM remembered_rules WHERE forgotten_at IS NULL ORDER BY created_at, id",
    ),
  );
  return deepFreeze(
    rows.map((r) => ({
      id: String(r.id),
      op: String(r.op),
      rule: JSON.parse(String(r.rule)) as Record<string, Json>,
      request_id: String(r.request_id),
      created_at: Number(r.created_at),
      token: r.token === null ? null : String(r.token),
      expires_at: r.expires_at === null ? null : Number(r.expires_at),
    })),
  );
}

/** `policy forget RULE_ID`: the rule stops applying; the row stays for the record. */
export async function forgetRule(ctx: StoreContext, id: string, actor: string): Promise<boolean> {
  return change(
    ctx,
    async (c) => {
      const changed = await c.tx.run(
        "UPDATE remembered_rules SET forgotten_at = ? WHERE id = ? AND forgotten_at IS NULL",
        [c.now, id],
      );
      if (changed === 1) await c.audit({ type: "rule_forgotten", request_id: null, actor, details: { rule: id } });
      return changed === 1;
    },
    DURABLE,
  );
}
