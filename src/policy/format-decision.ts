import { describeEffectConstraint } from "../constraint/index.js";
import type { PolicyDecision } from "../model/index.js";

/** The decision for people: its kind, then one line per effect (rule and why), then the guards. */
export function formatDecision(decision: PolicyDecision): string {
  const lines = [`decision: ${decision.kind}`];
  for (const e of decision.effects) {
    lines.push(
      `  ${e.site.line}:${e.site.column} ${e.op}: ${e.verdict}, ${e.rule === null ? "no rule" : `rule "${e.rule}"`} — ${e.why}`,
    );
  }
  for (const guard of decision.guards) lines.push(`  checked at every call: ${describeEffectConstraint(guard)}`);
  return lines.join("\n") + "\n";
}
