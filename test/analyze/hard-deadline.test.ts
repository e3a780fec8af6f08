// The analysis deadline holds inside TypeScript's checker too: the checker asks its cancellation
// token only between declarations, so the budget stops it wherever it is.
import { describe, expect, it } from "vitest";
import { AnalysisBudget, BudgetExceeded } from "../../src/analyze/budget.js";
import { ts } from "../../src/analyze/compile/typescript.js";

describe("Budget.hardDeadline", () => {
  it("stops a call that never returns at the deadline, as a budget refusal", () => {
    const budget = new AnalysisBudget({ ms: 50 });
    const started = performance.now();
    expect(() =>
      budget.hardDeadline(() => {
        for (;;); // a checker stuck in one declaration
      }),
    ).toThrow(BudgetExceeded);
    expect(performance.now() - started).toBeLessThan(30_000); // a stall guard, not a timing target
  });

  it("returns what the call returns, and passes its own errors on", () => {
    const budget = new AnalysisBudget({ ms: 5_000 });
    expect(budget.hardDeadline(() => [1, 2])).toEqual([1, 2]);
    expect(() =>
      budget.hardDeadline(() => {
        throw new TypeError("its own");
      }),
    ).toThrow("its own");
  });

  it("under an injected clock, real time is not the budget: the call runs to its end", () => {
    // A 5 ms budget on a clock that never moves, around a call that takes 50 ms of real time:
    // only the injected clock may end it, so it finishes however loaded the machine is.
    const budget = new AnalysisBudget({ ms: 5, clock: () => 0 });
    const started = performance.now();
    let spins = 0;
    const result = budget.hardDeadline(() => {
      while (performance.now() - started < 50) spins++;
      return "finished";
    });
    expect(result).toBe("finished");
    expect(spins).toBeGreaterThan(0);
  });

  it("under an injected clock the checker is still stopped where it asks for the time", () => {
    let now = 0;
    const budget = new AnalysisBudget({ ms: 5, clock: () => now });
    const token = budget.cancellationToken();
    expect(() =>
      budget.hardDeadline(() => {
        now = 5;
        token.throwIfCancellationRequested();
      }),
    ).toThrow(ts.OperationCanceledException);
  });
});
