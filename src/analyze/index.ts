// The static analyzer: programs in, facts out.
export { createAnalyzer, type Analyzer, type AnalyzeOptions } from "./create-analyzer.js";
