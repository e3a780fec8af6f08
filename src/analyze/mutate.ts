import { ts } from "./typescript.js";
import type { AbstractValue } from "../model/index.js";
import type { Interpreter } from "./interpreter.js";
import { skipOuter } from "./skip-outer.js";
import type { State } from "./state.js";

/**
 * Apply an in-place change to the object named by `receiver` when the pre-pass tracks it (a fresh,
 * unaliased literal). Any other mutation is already accounted for: the pre-pass then marks the heap
 * opaque or the variable volatile, and reads of it are unknown.
 */
export function mutateTracked(it: Interpreter, receiver: ts.Expression, state: State, change: (v: AbstractValue) => AbstractValue): void {
  const e = skipOuter(receiver);
  if (!ts.isIdentifier(e)) return;
  const symbol = it.checker.getSymbolAtLocation(e);
  if (symbol === undefined || !it.scan.tracked.has(symbol)) return;
  it.setVar(state, symbol, change(it.read(state, symbol)));
}
