import { jsonEqual, matchOp, satisfiesCall, type Call } from "../../../src/constraint/index.js";
import type { ManifestSet } from "../../../src/manifest/manifest-set.js";
import type { Effect, Facts } from "../../../src/model/facts.js";
import type { Trace } from "../support/concrete-runner.js";
import { effectOptions } from "../support/test-manifests.js";
import { contains } from "./contains.js";

const siteKey = (s: { line: number; column: number }): string => `${s.line}:${s.column}`;
// An agent action's call site has one effect per step: an effect is a site and an op.
const effectKey = (site: { line: number; column: number }, op: string): string => `${siteKey(site)} ${op}`;

/**
 * Every way the facts disagree with what concrete runs did; empty when they agree. The facts must
 * over-approximate every run: each call made has an effect at its site whose abstract arguments
 * contain the arguments sent, each site ran a number of times within its count range (the minimum
 * only binds runs where main returned; a call the boundary refused counts, as the sandbox records
 * it), no `proven` guarantee is broken by a run, and every run in
 * which main returned breaks each `refuted` one.
 */
export function violations(facts: Facts, traces: readonly Trace[], set: ManifestSet): string[] {
  const out: string[] = [];
  const bySite = new Map<string, Effect>();
  for (const e of facts.effects) {
    if (bySite.has(effectKey(e.site, e.op))) out.push(`two effects of ${e.op} at ${siteKey(e.site)}`);
    bySite.set(effectKey(e.site, e.op), e);
  }
  const opts = effectOptions(set);
  for (const [i, trace] of traces.entries()) {
    const run = `run ${i + 1} (${trace.outcome}${trace.error === undefined ? "" : `: ${trace.error}`})`;
    // A module that threw before program(...) built no guarantees to compare; its calls are checked below.
    if (
      trace.guarantees !== null &&
      !jsonEqual(
        trace.guarantees,
        facts.guarantees.map((g) => g.source),
      )
    ) {
      out.push(
        `${run}: the program built guarantees ${JSON.stringify(trace.guarantees)}, the analysis read ${JSON.stringify(facts.guarantees.map((g) => g.source))}`,
      );
    }
    for (const call of trace.calls) {
      const effect = bySite.get(effectKey(call.site, call.op));
      if (effect === undefined) {
        out.push(`${run}: ${call.op} at ${siteKey(call.site)} has no effect`);
        continue;
      }
      const inputs = set.actions.get(call.op)?.manifest.inputs.map((input) => input.name) ?? [];
      for (const input of new Set([...inputs, ...Object.keys(call.args)])) {
        const sent = Object.hasOwn(call.args, input) ? call.args[input]! : undefined;
        const claimed = Object.hasOwn(effect.args, input) ? effect.args[input] : undefined;
        if (claimed === undefined) {
          if (sent !== undefined)
            out.push(
              `${run}: ${call.op} at ${siteKey(call.site)} sent ${input} = ${JSON.stringify(sent)}, the analysis says it is never passed`,
            );
        } else if (!contains(claimed, sent ?? null)) {
          out.push(
            `${run}: ${call.op} at ${siteKey(call.site)} sent ${input} = ${JSON.stringify(sent ?? null)}, outside ${JSON.stringify(claimed)}`,
          );
        }
      }
    }
    for (const e of facts.effects) {
      const n = [...trace.calls, ...trace.refused].filter(
        (c) => c.op === e.op && siteKey(c.site) === siteKey(e.site),
      ).length;
      const low = trace.outcome === "returned" ? e.count.min : 0;
      if (n < low || (e.count.max !== null && n > e.count.max)) {
        out.push(`${run}: ${e.op} at ${siteKey(e.site)} ran ${n} times, outside ${e.count.min}..${e.count.max ?? "∞"}`);
      }
    }
    for (const g of facts.guarantees) {
      const broken = firstBreak(g.source, trace.calls, opts);
      if (g.status === "proven" && broken !== undefined)
        out.push(
          `${run}: proven guarantee ${g.text} is broken by call ${broken + 1} (${JSON.stringify(trace.calls[broken])})`,
        );
      // A refused call's arguments never crossed: a run with one of the guarantee's ops cannot show whether it would have broken it.
      const undecided = trace.refused.some((r) => matchOp(g.source.op, r.op));
      if (g.status === "refuted" && trace.outcome === "returned" && !undecided && broken === undefined)
        out.push(`${run}: refuted guarantee ${g.text} holds in this run`);
    }
  }
  return out;
}

/** The index of the first call that the run-time check of `c` would refuse, if any. */
export function firstBreak(
  c: Facts["guarantees"][number]["source"],
  calls: readonly Call[],
  opts: ReturnType<typeof effectOptions>,
): number | undefined {
  for (let i = 0; i < calls.length; i++) {
    if (!satisfiesCall(c, calls[i]!, calls.slice(0, i), opts)) return i;
  }
  return undefined;
}
