import { describeEffectConstraint } from "../../constraint/index.js";
import type { RememberLifetime, RememberScope } from "../../model/index.js";
import type { ApproverRequest, RememberPreview } from "./approver-view.js";
import { line, type Line } from "./lines.js";

// "Approve and remember" saves standing allow rules. Before anything is saved the approver sees
// the exact rules, what else they would let through, and chooses who they cover and for how long.

export const SCOPES = { agent: "this agent only", everyone: "every agent" } as const;
export const LIFETIMES = { hour: "one hour", day: "one day", forever: "until removed" } as const;
export type Scope = keyof typeof SCOPES;
export type Lifetime = keyof typeof LIFETIMES & RememberLifetime;

/** The rules remembering would save, or undefined with the reasons when it cannot be done (approve once instead). */
export function rememberedRules(r: ApproverRequest): { rules: Extract<RememberPreview, { rule: object }>[] } | { refused: string[] } {
  const previews = r.remember ?? [];
  const refused = previews.flatMap((p) => (p.rule === null ? [`${p.op}: ${p.why}`] : []));
  if (previews.length === 0) return { refused: ["the program makes no trusted call: there is nothing to remember"] };
  if (refused.length > 0) return { refused };
  return { rules: previews.filter((p): p is Extract<RememberPreview, { rule: object }> => p.rule !== null) };
}

/** The rules in words and as saved, and what else they would let through. */
export function rememberLines(r: ApproverRequest): Line[] {
  const made = rememberedRules(r);
  if ("refused" in made) return [line("This approval cannot be remembered (approve once instead):", "warn"), ...made.refused.map((why) => line(`  ${why}`))];
  const lines = [line("Approve and remember saves these allow rules:", "heading")];
  for (const { rule } of made.rules) {
    lines.push(line(`  ${rule.id}: allow ${describeEffectConstraint({ op: rule.op, ...rule.when })}`));
    lines.push(line(`    as saved: ${JSON.stringify(rule)}`, "dim"));
  }
  lines.push(line("What else it lets through: any later program that makes only these calls, with these", "warn"));
  lines.push(line(`values and counts, passes without asking — for the agents and the time you choose next.`, "warn"));
  return lines;
}

/** The decision body for a remembered approval: the rules cover whom and for as long as the person chose, never more. */
export function rememberBody(scope: Scope, lifetime: Lifetime): { decision: "approved_remember"; scope: RememberScope; lifetime: RememberLifetime } {
  return { decision: "approved_remember", scope: scope === "agent" ? "token" : "everyone", lifetime };
}
