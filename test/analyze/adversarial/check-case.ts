import type { Analyzer } from "../../../src/analyze/create-analyzer.js";
import type { ManifestSet } from "../../../src/manifest/manifest-set.js";
import type { Facts } from "../../../src/model/facts.js";
import { decide } from "../../../src/policy/index.js";
import { violations } from "../soundness/violations.js";
import { compileProgram } from "../support/concrete-runner.js";
import type { AdversarialCase } from "./case.js";
import { endToEndProblems, type EndToEnd } from "./end-to-end.js";

const describeDiagnostics = (facts: Facts): string =>
  facts.diagnostics.map((d) => `${d.line}:${d.column} ${d.code} ${d.construct ?? d.message}`).join("; ");

/**
 * Every way the analysis of one case falls short of its sound answer (empty: none), each
 * prefixed with its kind: `crash:`, `refusal:`, `over-refusal:`, `facts:` (a run the facts do
 * not cover, or a proven guarantee a run breaks) and `end-to-end:` (a receipt admitted it).
 */
export async function checkCase(
  analyzer: Analyzer,
  set: ManifestSet,
  e2e: EndToEnd,
  c: AdversarialCase,
): Promise<string[]> {
  let facts: Facts;
  try {
    facts = analyzer.analyze(c.source);
  } catch (err) {
    return [`crash: the analyzer threw ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`];
  }
  const refused = facts.diagnostics.length > 0;
  if (typeof c.expect === "object" || c.expect === "budget") {
    const wanted = typeof c.expect === "object" ? c.expect.refused : "analysis_budget_exceeded";
    const named = facts.diagnostics.some(
      (d) => d.construct === wanted || d.code === wanted || d.message.includes(wanted),
    );
    return named
      ? []
      : [
          `refusal: expected a refusal naming ${wanted}, got ${refused ? describeDiagnostics(facts) : "an accepted program"}`,
        ];
  }
  if (refused) return c.expect === "accepted" ? [`over-refusal: ${describeDiagnostics(facts)}`] : [];
  const program = compileProgram(c.source, set);
  const traces = (c.reads ?? [[]]).map((texts) =>
    program.run({ readText: (_op, n) => (texts.length === 0 ? "" : texts[n % texts.length]!) }),
  );
  const problems = violations(facts, traces, set).map((p) => `facts: ${p}`);
  if (!facts.ok) return problems;
  for (const [name, kind] of Object.entries(c.decisions ?? {})) {
    const { policy } = e2e.policies.find((p) => p.name === name)!;
    const decided = decide(facts, policy, set).kind;
    if (decided !== kind) problems.push(`end-to-end: the ${name} decided ${decided}, not ${kind}`);
  }
  problems.push(...(await endToEndProblems(e2e, set, c.source, facts, traces, c.probes)));
  return problems;
}
