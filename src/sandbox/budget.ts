import { performance } from "node:perf_hooks";

export type Exhausted = "cpu" | "wall";

/** Milliseconds since the epoch, the same clock in every thread (performance.now() is per thread). */
export const clockNow = (): number => performance.timeOrigin + performance.now();

// The slots of a run's shared clock (Float64Array over a SharedArrayBuffer).
export const CLOCK_SPENT = 0; // CPU milliseconds spent in the VM over the entries that ended
export const CLOCK_ENTERED = 1; // clockNow() of the entry under way, 0 when the VM is not running
export const CLOCK_SLOTS = 2;

/**
 * The run's time: CPU time is what the VM spends running (program code and the host functions it
 * calls synchronously), summed over every entry into the VM; wall time runs to a fixed deadline
 * whatever happens. QuickJS asks `exhausted()` while it runs; the host asks it between entries.
 * Both are written to `clock`, which the thread that started the run reads: QuickJS asks only
 * between bytecodes, so a native loop is stopped from outside (run-program.ts).
 */
export class RunBudget {
  readonly #clock: Float64Array;

  readonly #cpuMs: number;
  readonly #wallDeadline: number;

  constructor(
    cpuMs: number,
    wallDeadline: number, // clockNow() at which the run's wall time is up
    clock: Float64Array = new Float64Array(CLOCK_SLOTS),
  ) {
    this.#cpuMs = cpuMs;
    this.#wallDeadline = wallDeadline;
    this.#clock = clock;
  }

  /** Run `fn`, which enters the VM, on the CPU budget (an entry from inside another counts once). */
  inVm<T>(fn: () => T): T {
    const clock = this.#clock;
    if (clock[CLOCK_ENTERED] !== 0) return fn();
    const entered = clockNow();
    clock[CLOCK_ENTERED] = entered;
    try {
      return fn();
    } finally {
      clock[CLOCK_SPENT] = clock[CLOCK_SPENT]! + (clockNow() - entered);
      clock[CLOCK_ENTERED] = 0;
    }
  }

  exhausted(): Exhausted | undefined {
    const now = clockNow();
    if (cpuSpent(this.#clock, now) > this.#cpuMs) return "cpu";
    if (now > this.#wallDeadline) return "wall";
    return undefined;
  }

  cpuMsSpent(): number {
    return this.#clock[CLOCK_SPENT]!;
  }
}

/** CPU milliseconds a run's clock shows at `now`, the entry under way included. */
export function cpuSpent(clock: Float64Array, now: number): number {
  const entered = clock[CLOCK_ENTERED]!;
  return clock[CLOCK_SPENT]! + (entered === 0 ? 0 : now - entered);
}
