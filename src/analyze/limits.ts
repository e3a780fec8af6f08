/** The default limits of one analysis (see budget.ts); a module of its own so that help text can show them without loading the compiler. */
export const DEFAULT_BUDGET = { ms: 2000, steps: 200_000, bytes: 256 * 1024 } as const;
