import { MAX_UNROLLED_IN_ALL } from "../limits.js";

/** What is left of the loop iterations the analysis may unroll in all (see MAX_UNROLLED_IN_ALL). */
export class UnrollAllowance {
  #left = MAX_UNROLLED_IN_ALL;

  /**
   * Takes `iterations` unrolled iterations from the allowance; false (nothing taken) when they do not fit: widen
   * instead.
   */
  take(iterations: number): boolean {
    if (iterations > this.#left) return false;
    this.#left -= iterations;
    return true;
  }
}
