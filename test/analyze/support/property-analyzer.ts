import { createAnalyzer, type Analyzer } from "../../../src/analyze/create-analyzer.js";
import type { ManifestSet } from "../../../src/manifest/manifest-set.js";
import { STEP_BUDGET } from "./step-budget.js";

/**
 * An analyzer for the property tests: the shipped step and size limits, which do not depend on the
 * machine, and no wall-clock limit (see STEP_BUDGET). These tests judge what the analysis says; how
 * long it may take is the budget tests' and the benchmarks' concern.
 */
export function propertyAnalyzer(set: ManifestSet): Analyzer {
  return createAnalyzer(set, { budget: STEP_BUDGET });
}
