import { availableParallelism } from "node:os";

/** The body size every route accepts at most (413 past it; see read-body.ts). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Past the analyzer's own budget (2 s by default), a margin for a loaded machine before a thread is stopped. */
export const DEFAULT_ANALYSIS_TIMEOUT_MS = 10_000;

/** How many analysis threads a pool of `size` runs: as asked, default one per core, at least one. */
export function analysisThreads(size?: number): number {
  return Math.max(1, size ?? availableParallelism());
}
