// The analysis deadline holds inside TypeScript's checker too: the checker asks its cancellation
// token only between declarations, so the budget stops it wherever it is.
import { describe, expect, it } from "vitest";
import { Budget, BudgetExceeded } from "../../src/analyze/budget.js";

describe("Budget.hardDeadline", () => {
  it("stops a call that never returns at the deadline, as a budget refusal", () => {
    const budget = new Budget({ ms: 50 });
    const started = performance.now();
    expect(() =>
      budget.hardDeadline(() => {
        for (;;); // a checker stuck in one declaration
      }),
    ).toThrow(BudgetExceeded);
    expect(performance.now() - started).toBeLessThan(30_000); // a stall guard, not a timing target
  });

  it("returns what the call returns, and passes its own errors on", () => {
    const budget = new Budget({ ms: 5_000 });
    expect(budget.hardDeadline(() => [1, 2])).toEqual([1, 2]);
    expect(() =>
      budget.hardDeadline(() => {
        throw new TypeError("its own");
      }),
    ).toThrow("its own");
  });
});
