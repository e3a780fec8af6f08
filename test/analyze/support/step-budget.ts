/**
 * The budget of analyses whose outcome a test asserts: a clock that never moves, so that only the
 * step and size limits, the same on every machine, can stop one, however loaded the machine is.
 * Time limits are tested with a clock the test moves (budget.test.ts, shared-checker.test.ts) or a
 * load the test controls (hard-deadline.test.ts).
 */
export const STEP_BUDGET = { clock: (): number => 0 };
