import type { AbstractValue } from "../../model/index.js";
import { join, unknown } from "../domain/lattice.js";
import { nullish } from "../domain/operators.js";
import type { Influence } from "./influence.js";
import { assign, clone, joinStates, type State } from "./state.js";

/** The optional chains being evaluated, each with the states at the `?.` links that may skip its rest. */
export class OptionalChains {
  readonly #open: State[][] = [];

  readonly #influence: Influence;

  constructor(influence: Influence) {
    this.#influence = influence;
  }

  /**
   * Evaluate an optional chain (`a?.b.c(x)`): each `?.` whose left side may be null or undefined
   * skips the rest of the chain, so the chain's value may be undefined and its end state is joined
   * with the state at each skip.
   */
  evaluate(state: State, body: () => AbstractValue): AbstractValue {
    const skipped: State[] = [];
    this.#open.push(skipped);
    let value: AbstractValue;
    try {
      value = body();
    } finally {
      this.#open.pop();
    }
    if (skipped.length === 0) return value;
    assign(
      state,
      skipped.reduce<State>((a, b) => joinStates(a, b)!, state),
    );
    return join(value, unknown("undefined"));
  }

  /** A `?.` link: when `left` may be null or undefined, the rest of the chain may not run. */
  mayShortCircuit(left: AbstractValue, state: State): void {
    if (nullish(left) === "no") return;
    this.#influence.add(left);
    this.#open[this.#open.length - 1]?.push(clone(state));
  }
}
