import { ts } from "../compile/typescript.js";
import type { AbstractValue } from "../../model/index.js";
import type { Interpreter } from "./interpreter.js";
import { skipOuter } from "../compile/skip-outer.js";
import type { State } from "./state.js";

/**
 * Apply an in-place change to the object named by `receiver` when the pre-pass tracks it (a fresh,
 * unaliased literal). Any other mutation is accounted for elsewhere: the pre-pass then marks the
 * heap opaque or the variable volatile, and reads of it are unknown. `written` is what the change
 * stores in the object (values, and keys: Object.keys and a Map's keys show them): written to an
 * object the analysis does not follow, it may be read back through another name, so the
 * interpreter notes where it came from (see Heap).
 */
export function mutateTracked(
  it: Interpreter,
  receiver: ts.Expression,
  state: State,
  change: (v: AbstractValue) => AbstractValue,
  written: AbstractValue[],
): void {
  const e = skipOuter(receiver);
  const symbol = ts.isIdentifier(e) ? it.checker.getSymbolAtLocation(e) : undefined;
  if (symbol === undefined || !it.scan.tracked.has(symbol)) {
    it.heap.write(written);
    return;
  }
  it.vars.set(state, symbol, change(it.vars.read(state, symbol)));
}
