import type { Analyzer } from "../../../src/analyze/create-analyzer.js";
import type { ManifestSet } from "../../../src/manifest/manifest-set.js";
import type { Facts } from "../../../src/model/facts.js";
import { compileProgram, type Trace } from "../support/concrete-runner.js";
import { controlViolations, dataViolations, labelled } from "./labels.js";
import { violations } from "./violations.js";

export interface Checked {
  facts: Facts;
  traces: Trace[];
  problems: string[];
}

/**
 * Analyze a program, run it once per list of read texts, and list every disagreement. A program
 * of the supported subset must be accepted: a refusal other than a refuted guarantee is a problem.
 */
export function checkProgram(
  analyzer: Analyzer,
  set: ManifestSet,
  source: string,
  readTexts: readonly (readonly string[])[],
): Checked {
  const facts = analyzer.analyze(source);
  if (facts.diagnostics.length > 0) {
    return {
      facts,
      traces: [],
      problems: facts.diagnostics.map((d) => `refused at ${d.line}:${d.column}: ${d.code} ${d.message}`),
    };
  }
  const program = compileProgram(source, set);
  const text = (texts: readonly string[], n: number): string => (texts.length === 0 ? "" : texts[n % texts.length]!);
  const traces = readTexts.map((texts) => program.run({ readText: (_op, n) => text(texts, n) }));
  const problems = violations(facts, traces, set);
  // Provenance: the sources of every argument, and what influences every call (labels.ts).
  for (const texts of readTexts) {
    const labelledRun = program.run({ readText: (op, n) => labelled(set, op, text(texts, n)) });
    problems.push(...dataViolations(facts, labelledRun, set).map((p) => `labelled run: ${p}`));
    problems.push(...controlViolations(facts, program, texts));
  }
  return { facts, traces, problems };
}
