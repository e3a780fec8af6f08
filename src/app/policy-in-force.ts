import { createHash } from "node:crypto";
import { canonicalJson } from "../constraint/index.js";
import type { ManifestSet } from "../manifest/index.js";
import type { Json } from "../model/index.js";
import { checkRuleAgainstManifests } from "../policy/index.js";
import { PolicyRule, type LoadedRule, type Policy } from "../policy/index.js";
import type { StoredRule } from "../store/index.js";
import type { AppContext } from "./context.js";

/** Where remembered rules say they come from, in explanations and listings. */
export const REMEMBERED_FILE = "remembered (approve and remember)";

export interface PolicyInForce {
  policy: Policy;
  /** Remembered rules that no longer fit the manifests or the rule schema: they do not apply. */
  dropped: { id: string; why: string }[];
}

const composed = new WeakMap<Policy, { key: string; value: PolicyInForce }>();

/**
 * The policy files plus the rules people saved with "approve and remember". Its sha256 covers
 * both, so a receipt names the rules that let it through. A stored rule that does not check
 * (a manifest changed since) is left out: fewer rules can only ask more, never allow more.
 * `submitter`: whose program it decides — remembered rules for every agent apply, and those for
 * this token (null: none of one token's); left out, every remembered rule is listed (for
 * listings, never for a decision).
 */
export async function policyInForce(ctx: AppContext, submitter?: string | null): Promise<PolicyInForce> {
  const base = ctx.policy();
  const stored = (await ctx.rememberedRules()).filter(
    (r) => submitter === undefined || r.token === null || r.token === submitter,
  );
  if (stored.length === 0) return { policy: base, dropped: [] };
  const key = canonicalJson(stored.map((r) => [r.id, r.rule]) as Json);
  const cached = composed.get(base);
  if (cached?.key === key) return cached.value;
  const value = withRemembered(base, stored, ctx.manifests());
  composed.set(base, { key, value });
  return value;
}

function withRemembered(base: Policy, stored: readonly StoredRule[], manifests: ManifestSet): PolicyInForce {
  const taken = new Set(base.rules.map((r) => r.id));
  const rules: LoadedRule[] = [];
  const dropped: PolicyInForce["dropped"] = [];
  for (const s of stored) {
    const parsed = PolicyRule.safeParse(s.rule);
    const problem = !parsed.success
      ? (parsed.error.issues[0]?.message ?? "not a rule")
      : taken.has(parsed.data.id)
        ? `a policy file has a rule with id ${parsed.data.id}`
        : checkRuleAgainstManifests(parsed.data, manifests)[0]?.message;
    if (problem !== undefined || !parsed.success) dropped.push({ id: s.id, why: problem ?? "not a rule" });
    else {
      taken.add(parsed.data.id);
      rules.push({ ...parsed.data, file: REMEMBERED_FILE });
    }
  }
  if (rules.length === 0) return { policy: base, dropped };
  const sha256 = createHash("sha256")
    .update(canonicalJson([base.sha256, rules.map(({ file: _, ...r }) => r)] as unknown as Json))
    .digest("hex");
  return { policy: { ...base, rules: [...base.rules, ...rules], sha256 }, dropped };
}
