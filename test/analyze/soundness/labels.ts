import { sourceVerdict } from "../../../src/constraint/index.js";
import type { ManifestSet } from "../../../src/manifest/manifest-set.js";
import { everyResultField } from "../../../src/manifest/result-fields.js";
import type { Facts } from "../../../src/model/facts.js";
import { sourcesOf } from "../../../src/policy/check-rule.js";
import type { Compiled, Trace } from "../support/concrete-runner.js";

/**
 * Provenance checked against concrete runs (issue 15), two ways:
 * - data: every text an op's read returns carries that op's label, a private-use character at
 *   both ends (one code point: it survives case changes, slicing from either end, splitting and
 *   iteration by code point; no literal of a generated program holds one). An argument that
 *   holds an op's label derives from that op, so its sources must allow it.
 * - control: the run is repeated with one op's reads changed (every other result the same, ids
 *   not counted from the calls made). A call site whose influence excludes that op must run as
 *   often as before, with the same value for every argument whose sources exclude it too.
 * Runs where main did not return are not compared: a failure that ends a run is not influence.
 */

const FIRST_LABEL = 0xe000;

/** Each op that may read, with its label. */
function labels(set: ManifestSet): Map<string, string> {
  return new Map([...set.actions.keys()].sort().map((op, i) => [op, String.fromCodePoint(FIRST_LABEL + i)]));
}

/** What a read of `op` returns in a labelled run. */
export function labelled(set: ManifestSet, op: string, text: string): string {
  const label = labels(set).get(op)!;
  return `${label}${text}${label}`;
}

const siteKey = (s: { line: number; column: number }): string => `${s.line}:${s.column}`;
// One site can make several ops' calls (an agent action's steps): an effect is its op at its site.
const effectKey = (op: string, s: { line: number; column: number }): string => `${op}@${siteKey(s)}`;

/** Every argument a labelled run sent that holds the label of an op its sources exclude. */
export function dataViolations(facts: Facts, trace: Trace, set: ManifestSet): string[] {
  const out: string[] = [];
  const byCall = new Map(facts.effects.map((e) => [effectKey(e.op, e.site), e]));
  for (const call of trace.calls) {
    const effect = byCall.get(effectKey(call.op, call.site));
    if (effect === undefined) continue; // reported by violations()
    for (const [input, value] of Object.entries(call.args)) {
      const text = JSON.stringify(value);
      for (const [op, label] of labels(set)) {
        if (!text.includes(label)) continue;
        const sources = sourcesOf(effect, input);
        if (sourceVerdict({ from: [op] }, sources) === "no")
          out.push(
            `${call.op} at ${siteKey(call.site)} sent ${input} = ${text}, which holds ${op}'s data; the analysis says it never derives from it (${JSON.stringify(sources)})`,
          );
        if (!resultTrusted(set, op) && sourceVerdict({ untrusted: false }, sources) === "yes")
          out.push(
            `${call.op} at ${siteKey(call.site)} sent ${input} = ${text}, untrusted data from ${op}; the analysis says it is never untrusted`,
          );
      }
    }
  }
  return out;
}

function resultTrusted(set: ManifestSet, op: string): boolean {
  const manifest = set.actions.get(op)?.manifest;
  return manifest !== undefined && everyResultField(manifest, "trusted");
}

/** Texts a changed read returns: one of them differs from every text of the run. */
const OTHER_TEXTS = ["b@x.com,c@y.org", "hello world, a longer text"];

/**
 * Run `program` with `texts` as its reads, then once per op it read with that op's reads changed,
 * and list every site that the analysis says the op does not influence whose calls differ.
 */
export function controlViolations(facts: Facts, program: Compiled, texts: readonly string[]): string[] {
  const other = OTHER_TEXTS.find((t) => !texts.includes(t))!;
  const read = (changedOp?: string) => (reading: string, n: number) =>
    reading === changedOp ? other : texts.length === 0 ? "" : texts[n % texts.length]!;
  const base = program.run({ readText: read(), stableIds: true });
  if (base.outcome !== "returned") return [];
  const out: string[] = [];
  for (const op of new Set(base.calls.map((c) => c.op)))
    out.push(...changedRead(facts, base, program.run({ readText: read(op), stableIds: true }), op, other));
  return out;
}

function changedRead(facts: Facts, base: Trace, changed: Trace, op: string, other: string): string[] {
  if (changed.outcome !== "returned") return [];
  const out: string[] = [];
  for (const effect of facts.effects) {
    if (sourceVerdict({ from: [op] }, effect.influencedBy ?? []) !== "no") continue;
    const here = (c: { op: string; site: Trace["calls"][number]["site"] }) =>
      effectKey(c.op, c.site) === effectKey(effect.op, effect.site);
    const at = (t: Trace) => t.calls.filter(here);
    // How often the site ran counts the calls the boundary refused too; whether a call crossed is its data's concern.
    const ran = (t: Trace) => at(t).length + t.refused.filter(here).length;
    const [before, after] = [at(base), at(changed)];
    const where = `${effect.op} at ${siteKey(effect.site)}`;
    if (ran(base) !== ran(changed)) {
      out.push(
        `${where} ran ${ran(base)} times, and ${ran(changed)} times when ${op} read ${JSON.stringify(other)}; the analysis says ${op} does not influence it`,
      );
      continue;
    }
    for (const input of Object.keys(effect.args)) {
      if (sourceVerdict({ from: [op] }, sourcesOf(effect, input)) !== "no") continue;
      const values = (calls: Trace["calls"]) => JSON.stringify(calls.map((c) => c.args[input] ?? null));
      if (values(before) !== values(after))
        out.push(
          `${where} sent ${input} = ${values(before)}, and ${values(after)} when ${op} read ${JSON.stringify(other)}; the analysis says neither its value nor the call depends on ${op}`,
        );
    }
  }
  return out;
}
