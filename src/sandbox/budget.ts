import { performance } from "node:perf_hooks";

export type Exhausted = "cpu" | "wall";

/**
 * The run's time: CPU time is what the VM spends running (program code and the host functions it
 * calls synchronously), summed over every entry into the VM; wall time runs from the start
 * whatever happens. QuickJS asks `exhausted()` while it runs; the host asks it between entries.
 */
export class Budget {
  private spent = 0;
  private enteredAt: number | undefined;
  private readonly wallDeadline: number;

  constructor(
    private readonly cpuMs: number,
    wallMs: number,
  ) {
    this.wallDeadline = performance.now() + wallMs;
  }

  /** Run `fn`, which enters the VM, on the CPU budget (an entry from inside another counts once). */
  inVm<T>(fn: () => T): T {
    if (this.enteredAt !== undefined) return fn();
    this.enteredAt = performance.now();
    try {
      return fn();
    } finally {
      this.spent += performance.now() - this.enteredAt;
      this.enteredAt = undefined;
    }
  }

  exhausted(): Exhausted | undefined {
    const now = performance.now();
    if (this.spent + (this.enteredAt === undefined ? 0 : now - this.enteredAt) > this.cpuMs) return "cpu";
    if (now > this.wallDeadline) return "wall";
    return undefined;
  }

  msUntilWallDeadline(): number {
    return Math.max(0, this.wallDeadline - performance.now());
  }

  cpuMsSpent(): number {
    return this.spent;
  }
}
