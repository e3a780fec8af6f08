// The static analyzer: programs in, facts out.
export { createAnalyzer, type Analyzer, type AnalyzeOptions, type AnalyzerOptions } from "./create-analyzer.js";
export { type BudgetOptions } from "./budget.js";
export { DEFAULT_BUDGET } from "./limits.js";
export { useCodeCache } from "./compile/code-cache.js";
export { ts } from "./compile/typescript.js";
