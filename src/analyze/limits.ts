// Every budget and bound of the analysis, in one place. No imports: help text reads the budget's
// defaults from here without loading the compiler.

/** The default budget of one analysis (see budget.ts): wall-clock time, interpreter steps, program bytes. */
export const DEFAULT_BUDGET = { ms: 2000, steps: 200_000, bytes: 256 * 1024 } as const;

/** The interpreter looks at the clock once per this many steps: reading it costs more than a step. */
export const STEPS_PER_CLOCK_READ = 1024;

/**
 * What one shared checker checks before it is replaced: it holds on to every program it checked,
 * some 70-90 times the program's text.
 */
export const SHARED_CHECKER_LIMITS = { programs: 128, chars: 1 << 20 };

/**
 * How deeply the syntax tree may nest. The compiler's checker and every stage of the analysis
 * walk the tree recursively; past this depth they could overflow the stack. Realistic programs
 * stay far below it (a few dozen levels).
 */
export const MAX_NESTING = 200;

/**
 * How many syntax nodes one function body (or the module's own top level) may hold, nested
 * functions not counted. The type checker looks at the analysis's deadline only between
 * functions, so the largest function bounds how long the budget can be overrun; realistic
 * functions hold a few hundred nodes.
 */
export const MAX_FUNCTION_NODES = 10_000;

/**
 * Runs of the analysis that may widen what objects changed through another name hold; the last assumes they hold
 * untrusted data.
 */
export const MAX_HEAP_ROUNDS = 4;

/**
 * How deep the interpreter follows nested calls; a deeper call is treated as recursion: any calls, an unknown result.
 */
export const MAX_CALL_DEPTH = 16;

/** Iterations one loop (or one callback over a constant array) may be unrolled; a longer one is widened. */
export const MAX_UNROLL_PER_LOOP = 64;

/**
 * Loop iterations (and callbacks over constant arrays) the analysis may unroll in all, across
 * every loop: 60 × 60 × 60 unrolled iterations would spend the whole budget, so past this every
 * loop widens (counts unbounded, values unknown) instead of running out of budget.
 */
export const MAX_UNROLLED_IN_ALL = 2048;

/** Times a widened loop body is re-run until the provenance it writes is already in the widened values. */
export const MAX_WIDENING_ROUNDS = 4;

/** How many distinct values a constant set keeps before it is generalized. */
export const MAX_CONSTANTS = 64;

/** How large a constant may grow (array elements, object fields and string characters, all nested), and how deep. */
export const MAX_CONSTANT_SIZE = 200_000;
export const MAX_CONSTANT_DEPTH = 500;

/** Pairs of constants a binary operator computes exactly; past this the result is derived. */
export const MAX_OPERATOR_COMBINATIONS = 64;

/** Combinations of constant arguments a pure built-in is run on exactly; past this the result is unknown. */
export const MAX_BUILTIN_COMBINATIONS = 16;

/**
 * The longest string the analysis computes or keeps as a known prefix or suffix (a doubling loop soon passes the
 * engine's limit).
 */
export const MAX_STRING = 100_000;

/** How deep the parts of a returned value are followed; a part deeper down is described as a whole. */
export const MAX_RESULT_DEPTH = 4;

/** How many parts are listed at most; past this the whole value is one part. */
export const MAX_RESULT_PARTS = 64;
