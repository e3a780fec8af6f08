import { createContext, Script } from "node:vm";
import { ts } from "./compile/typescript.js";
import { DEFAULT_BUDGET, STEPS_PER_CLOCK_READ } from "./limits.js";

/**
 * What one analysis may spend. Agent programs are untrusted input: whatever they contain, the
 * analysis stops within these limits and refuses with `analysis_budget_exceeded`.
 * - `ms`: wall-clock time for the whole analysis, the type check included;
 * - `steps`: statements and expressions the interpreter may evaluate. Unlike time, the same
 *   program always needs the same steps, so a program that fits on one machine fits on all;
 * - `bytes`: the program's size in UTF-8 bytes, checked before anything is parsed;
 * - `clock`: milliseconds from any origin, injectable so that tests of the budget are exact: under
 *   an injected clock every time limit reads that clock (see `hardDeadline`), so an analysis
 *   ends the same way however loaded the machine is.
 */
export interface BudgetOptions {
  ms?: number;
  steps?: number;
  bytes?: number;
  clock?: () => number;
}

/** Thrown where the budget runs out; caught once, at the top of the analysis. */
export class BudgetExceeded extends Error {
  constructor(
    readonly limit: "ms" | "steps",
    readonly at: ts.Node | undefined,
  ) {
    super(`analysis budget exceeded: ${limit}`);
  }
}

/** The resources left to one analysis: started when the analysis starts, spent by every stage. */
export class AnalysisBudget {
  readonly limits: Required<BudgetOptions>;
  readonly #deadline: number;
  readonly #realTime: boolean; // the clock is the default one, which a vm timeout can follow
  #steps = 0;
  #sinceClock = 0;

  constructor(options: BudgetOptions = {}) {
    this.#realTime = options.clock === undefined;
    this.limits = { ...DEFAULT_BUDGET, clock: () => performance.now(), ...defined(options) };
    for (const key of ["ms", "steps", "bytes"] as const) {
      const n = this.limits[key];
      if (!(Number.isFinite(n) && n > 0))
        throw new RangeError(`the analysis budget's ${key} must be a positive number, not ${n}`);
    }
    this.#deadline = this.limits.clock() + this.limits.ms;
  }

  /** One interpreter step at `node`: throws BudgetExceeded past the step limit or the deadline. */
  step(node: ts.Node): void {
    if (++this.#steps > this.limits.steps) throw new BudgetExceeded("steps", node);
    if (++this.#sinceClock >= STEPS_PER_CLOCK_READ) {
      this.#sinceClock = 0;
      if (this.expired()) throw new BudgetExceeded("ms", node);
    }
  }

  expired(): boolean {
    return this.limits.clock() >= this.#deadline;
  }

  /** Throws BudgetExceeded once the deadline has passed (between stages, where no node is at fault). */
  checkTime(): void {
    if (this.expired()) throw new BudgetExceeded("ms", undefined);
  }

  /**
   * Run `f` (TypeScript's checker) and stop it at the deadline wherever it is: the checker asks its
   * cancellation token only between declarations, and a hostile body can keep it in one
   * declaration's flow analysis for minutes. The vm timeout interrupts any JavaScript on the stack;
   * the analyzer then drops the interrupted checker (Compiler.discard). The timeout counts real
   * time, so it stands for the deadline only on the real clock: under an injected clock `f` runs
   * to its end, stopped only where it asks the cancellation token.
   */
  hardDeadline<T>(f: () => T): T {
    if (!this.#realTime) return f();
    HARD_DEADLINE_CONTEXT.f = f;
    try {
      return HARD_DEADLINE_SCRIPT.runInContext(HARD_DEADLINE_CONTEXT, {
        timeout: Math.max(1, Math.ceil(this.#deadline - this.limits.clock())),
      }) as T;
    } catch (err) {
      if ((err as { code?: unknown }).code === "ERR_SCRIPT_EXECUTION_TIMEOUT")
        throw new BudgetExceeded("ms", undefined);
      throw err;
    } finally {
      HARD_DEADLINE_CONTEXT.f = undefined;
    }
  }

  /** For the TypeScript checker, which asks between declarations and gives up with OperationCanceledException. */
  cancellationToken(): ts.CancellationToken {
    return {
      isCancellationRequested: () => this.expired(),
      throwIfCancellationRequested: () => {
        if (this.expired()) throw new ts.OperationCanceledException();
      },
    };
  }
}

// One context and script for every analysis: only the call runs in it, the checker stays in ours.
const HARD_DEADLINE_CONTEXT = createContext({ f: undefined as (() => unknown) | undefined });
const HARD_DEADLINE_SCRIPT = new Script("f()");

function defined(options: BudgetOptions): BudgetOptions {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
}
