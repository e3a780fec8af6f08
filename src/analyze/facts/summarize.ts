import { describeArgument, describeEffectConstraint } from "../../constraint/index.js";
import type { CountRange } from "../../model/index.js";
import type { Effect, GuaranteeResult } from "../../model/index.js";
import { provenanceOf } from "../domain/lattice.js";

const STATUS_WORDS = { proven: "proven", refuted: "refuted", enforced: "enforced at run time" } as const;

/**
 * The plain-language summary: one line per guarantee, one per effect, and one per source of
 * untrusted data. Generated from the facts alone, never from the agent's text, in a fixed order.
 */
export function summarize(effects: readonly Effect[], guarantees: readonly GuaranteeResult[]): string[] {
  const lines: string[] = [];
  for (const g of guarantees)
    lines.push(`${capitalize(describeEffectConstraint(g.source))} — ${STATUS_WORDS[g.status]}`);
  if (effects.length === 0) lines.push("Makes no trusted call");
  for (const e of effects) {
    const args = Object.entries(e.args).map(([name, v]) => `${name} ${describeArgument(v)}`);
    lines.push(
      `Calls ${e.op}${e.agentAction === undefined ? "" : ` (step ${e.agentAction.step} of ${e.agentAction.op})`} at line ${e.site.line} ${countText(e.count)}${args.length > 0 ? `: ${args.join("; ")}` : ""}`,
    );
  }
  const untrusted = new Set<string>();
  for (const e of effects)
    for (const v of Object.values(e.args)) for (const p of provenanceOf(v)) if (p.untrusted) untrusted.add(p.source);
  for (const source of [...untrusted].sort()) lines.push(`Passes untrusted data (${source}) to a trusted call`);
  return lines;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function countText(c: CountRange): string {
  if (c.max === null) return c.min === 0 ? "(any number of times)" : `(at least ${c.min} times)`;
  if (c.min === c.max) return c.min === 1 ? "(once)" : `(${c.min} times)`;
  return `(${c.min} to ${c.max} times)`;
}
