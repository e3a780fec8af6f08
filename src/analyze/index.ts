// The static analyzer: programs in, facts out. Its stages, in the order create-analyzer.ts runs them:
//   compile/    parse and type-check the program against the API of its manifests; find its shape
//   check/      refuse what the interpretation could not follow (constructs, imports, types, size)
//   interpret/  the abstract interpreter, over the values and operations of domain/
//   facts/      effects, guarantees and the returned value's parts, as facts and their summary
// limits.ts holds every budget and bound of the analysis.
export { createAnalyzer, type Analyzer, type AnalyzeOptions, type AnalyzerOptions } from "./create-analyzer.js";
export type { BudgetOptions } from "./budget.js";
export { DEFAULT_BUDGET } from "./limits.js";
export { useCodeCache } from "./compile/code-cache.js";
export { ts } from "./compile/typescript.js";
