import { CountersignError } from "../model/index.js";
import type { Json } from "../model/index.js";
import { REMEMBER_LIFETIME_MS, type PersonDecision, type RememberedRule, type RememberLifetime, type RememberScope, type StoredRequest } from "../model/index.js";
import { rememberRule } from "../policy/index.js";
import type { AppContext } from "./context.js";
import { conflict, notFound } from "./not-found.js";

/**
 * What a person decides, as the approver sends it; approved_remember's rules are made here, for
 * the scope and lifetime the person chose (by default the narrowest: this token, one hour).
 */
export type Verdict =
  | Exclude<PersonDecision, { kind: "approved_remember" }>
  | { kind: "approved_remember"; approver: string; scope?: RememberScope; lifetime?: RememberLifetime };

/**
 * Record a person's decision on a pending request, exactly once. The same decision again answers
 * the request as it is (`changed: false`); another decision, or one on a request that is no
 * longer pending, is a conflict. approved_remember saves, with the decision, the narrowest allow
 * rule per op that auto-approves exactly this program; if one op cannot be pinned that way
 * nothing is saved and the approver is told why (approve once instead).
 */
export async function decideRequest(ctx: AppContext, id: string, verdict: Verdict): Promise<{ request: StoredRequest; changed: boolean }> {
  const store = await ctx.store();
  let decision: PersonDecision;
  if (verdict.kind === "approved_remember") {
    const request = await store.get(id);
    if (request === null) throw notFound("request", id);
    const lifetime = REMEMBER_LIFETIME_MS[verdict.lifetime ?? "hour"];
    const scope = { token: (verdict.scope ?? "token") === "token" ? request.token : null, expires_at: lifetime === null ? null : ctx.now().getTime() + lifetime };
    decision = { kind: "approved_remember", approver: verdict.approver, rules: rememberedRules(request, ctx).map((r) => ({ ...r, ...scope })) };
  } else {
    decision = verdict;
  }
  const result = await store.decide(id, decision);
  if (result.ok) return { request: result.request, changed: result.changed };
  if (result.reason === "not_found") throw notFound("request", id);
  const now = result.request.decision?.kind ?? result.request.status;
  throw conflict(id, `request ${id} is already ${now}`, { status: result.request.status });
}

function rememberedRules(request: StoredRequest, ctx: AppContext): Pick<RememberedRule, "id" | "op" | "rule">[] {
  const made = rememberRule(request.facts, request.policy, ctx.manifests());
  const refused = made.filter((m) => m.rule === null);
  if (refused.length > 0 || made.length === 0) {
    const why = made.length === 0 ? "the program makes no trusted call: there is nothing to remember" : refused.map((m) => `${m.op}: ${"why" in m ? m.why : ""}`).join("; ");
    throw new CountersignError("usage_error", "authority", `cannot remember this approval: ${why}`, { requestId: request.id, details: { reason: "cannot_remember" } });
  }
  return made.map((m) => ({ id: m.rule!.id, op: m.op, rule: JSON.parse(JSON.stringify(m.rule)) as Record<string, Json> }));
}
