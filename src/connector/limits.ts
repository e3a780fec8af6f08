/** Bounds on one connector call. Extism 1.0.3 has no memory or timeout option, so the host enforces these itself. */
export interface Limits {
  timeoutMs: number; // wall clock for one plugin call, host functions included
  maxResponseBytes: number; // an HTTP response body or a file read
  maxMemoryPages: number; // the most linear memory (64 KiB pages) a plugin may declare
  // what a plugin may allocate in host memory (Extism's blocks: its output, its requests) in one call
  maxHostMemoryBytes: number;
}

export const DEFAULT_LIMITS: Limits = {
  timeoutMs: 10_000,
  maxResponseBytes: 1 << 20,
  maxMemoryPages: 256,
  maxHostMemoryBytes: 64 << 20, // as much as one message to or from a plugin worker may carry
};
