import type { RequestPage } from "../../app/index.js";
import type { RememberLifetime, RememberScope } from "../../model/index.js";
import { line, type Line } from "./lines.js";

// "Approve and remember" saves standing allow rules. Before anything is saved the approver sees
// the exact rules, what else they would let through, and chooses who they cover and for how long.

export const SCOPES = { agent: "this agent only", everyone: "every agent" } as const;
export const LIFETIMES = { hour: "one hour", day: "one day", forever: "until removed" } as const;
export type ScopeChoice = keyof typeof SCOPES;
export type Lifetime = keyof typeof LIFETIMES & RememberLifetime;

/** Why remembering cannot be done (approve once instead), or undefined when it can. */
export function cannotRemember(page: RequestPage): string[] | undefined {
  const remember = page.remember;
  if (remember === null) return ["the request no longer waits for a decision"];
  if (remember.rules.length === 0 && remember.refused.length === 0)
    return ["the program makes no trusted call: there is nothing to remember"];
  return remember.refused.length > 0 ? remember.refused.map((r) => `${r.op}: ${r.why}`) : undefined;
}

/** The rules in words, what else each would let through, and each as saved. */
export function rememberLines(page: RequestPage): Line[] {
  const refused = cannotRemember(page);
  if (refused !== undefined)
    return [
      line("This approval cannot be remembered (approve once instead):", "warn"),
      ...refused.map((why) => line(`  ${why}`)),
    ];
  const lines = [line("Approve and remember saves these allow rules:", "heading")];
  for (const r of page.remember!.rules) {
    lines.push(line(`  ${r.id}: allow ${r.text}`));
    lines.push(line(`  What else it lets through: ${r.also}`, "warn"));
    lines.push(
      line("  As saved:", "dim"),
      ...r.rule.split("\n").map((l): Line => ({ gutter: "    │ ", text: l, style: "dim" })),
    );
  }
  return lines;
}

/**
 * The decision body for a remembered approval: the rules cover whom and for as long as the person chose, never more.
 */
export function rememberBody(
  scope: ScopeChoice,
  lifetime: Lifetime,
  page?: RequestPage,
): { decision: "approved_remember"; scope: RememberScope; lifetime: RememberLifetime; shown?: string } {
  return { decision: "approved_remember", scope: scope === "agent" ? "token" : "everyone", lifetime, ...shownOf(page) };
}

/** What an approval says it was shown: the digest of the content the page said it binds (none: nothing to bind). */
export function shownOf(page: RequestPage | undefined): { shown?: string } {
  return page?.binding == null ? {} : { shown: page.binding.sha256 };
}
