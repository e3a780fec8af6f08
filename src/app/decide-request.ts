import { CountersignError } from "../model/index.js";
import type { Json } from "../model/index.js";
import {
  REMEMBER_LIFETIME_MS,
  type PersonDecision,
  type RememberedRule,
  type RememberLifetime,
  type RememberScope,
  type StoredRequest,
} from "../model/index.js";
import { rememberRule } from "../policy/index.js";
import { signCheckpoint } from "../receipt/index.js";
import { approvalBinding, boundPolicy, type Bound } from "./approval-binding.js";
import { checkpointAfterDecision } from "./checkpoint-audit-chain.js";
import type { AppContext } from "./context.js";
import { conflict, notFound } from "./not-found.js";

/**
 * What a person decides, as the approver sends it; approved_remember's rules are made here, for
 * the scope and lifetime the person chose (by default the narrowest: this token, one hour).
 * `shown`: an approval's digest of the content the page said it binds (requestPage's `binding`).
 */
export type Verdict =
  | Exclude<PersonDecision, { kind: "approved_remember" | "approved_once" }>
  | { kind: "approved_once"; approver: string; shown?: string }
  | { kind: "approved_remember"; approver: string; scope?: RememberScope; lifetime?: RememberLifetime; shown?: string };

/**
 * Record a person's decision on a pending request, exactly once. The same decision again answers
 * the request as it is (`changed: false`); another decision, or one on a request that is no
 * longer pending, is a conflict. approved_remember saves, with the decision, the narrowest allow
 * rule per op that auto-approves exactly this program; if one op cannot be pinned that way
 * nothing is saved and the approver is told why (approve once instead).
 *
 * An approval of a request that sends resolved content (a draft) binds the content the person
 * was shown: it is read again now, must match the digest the approver sends (else refused: the
 * draft changed, look again), and the grants the receipt will carry, and any remembered rule,
 * hold it exactly, so the send is refused if the draft changes afterwards.
 */
export async function decideRequest(
  ctx: AppContext,
  id: string,
  verdict: Verdict,
): Promise<{ request: StoredRequest; changed: boolean }> {
  const store = await ctx.store();
  let decision: PersonDecision;
  if (verdict.kind === "approved_remember" || verdict.kind === "approved_once") {
    const request = await store.get(id);
    if (request === null) throw notFound("request", id);
    // Only a pending request is bound: the store answers any other as a repeat or a conflict.
    const binding =
      request.status === "pending" ? await approvalBinding(ctx, request, ctx.manifests(), verdict.shown) : null;
    const bound =
      binding === null ? {} : { bound: { sha256: binding.sha256, policy: boundPolicy(request.policy, binding.bound) } };
    if (verdict.kind === "approved_once") {
      decision = { kind: "approved_once", approver: verdict.approver, ...bound };
    } else {
      const lifetime = REMEMBER_LIFETIME_MS[verdict.lifetime ?? "hour"];
      const scope = {
        token: (verdict.scope ?? "token") === "token" ? request.token : null,
        expires_at: lifetime === null ? null : ctx.now().getTime() + lifetime,
      };
      const rules =
        request.status === "pending"
          ? rememberedRules(request, ctx, binding?.bound ?? new Map()).map((r) => ({ ...r, ...scope }))
          : [];
      decision = { kind: "approved_remember", approver: verdict.approver, rules, ...bound };
    }
  } else {
    decision = verdict;
  }
  // The decision's transaction stores the checkpoint of the head it leaves: a receipt asked for
  // as soon as the decision shows finds it signed.
  const signing = (await ctx.keys.keyring(ctx.now())).active;
  const result = await store.decide(id, decision, {
    kid: signing.kid,
    sign: (checkpoint) => signCheckpoint(checkpoint, signing),
  });
  if (result.ok) {
    if (result.changed) await checkpointAfterDecision(ctx);
    return { request: result.request, changed: result.changed };
  }
  if (result.reason === "not_found") throw notFound("request", id);
  const now = result.request.decision?.kind ?? result.request.status;
  throw conflict(id, `request ${id} is already ${now}`, { status: result.request.status });
}

function rememberedRules(
  request: StoredRequest,
  ctx: AppContext,
  bound: Bound,
): Pick<RememberedRule, "id" | "op" | "rule">[] {
  const made = rememberRule(request.facts, request.policy, ctx.manifests(), bound);
  const refused = made.filter((m) => m.rule === null);
  if (refused.length > 0 || made.length === 0) {
    const why =
      made.length === 0
        ? "the program makes no trusted call: there is nothing to remember"
        : refused.map((m) => `${m.op}: ${"why" in m ? m.why : ""}`).join("; ");
    throw new CountersignError("usage_error", "authority", `cannot remember this approval: ${why}`, {
      requestId: request.id,
      details: { reason: "cannot_remember" },
    });
  }
  return made.map((m) => ({
    id: m.rule!.id,
    op: m.op,
    rule: JSON.parse(JSON.stringify(m.rule)) as Record<string, Json>,
  }));
}
