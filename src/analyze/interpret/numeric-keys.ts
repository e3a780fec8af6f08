import type { ts } from "../compile/typescript.js";
import type { AbstractValue } from "../../model/index.js";
import { isNumber } from "../domain/lattice.js";

/**
 * The computed member accesses whose key the pre-pass could not show to be a number: each passes
 * only if its key is one on every visit (a key that is not a number may reach any property).
 */
export class NumericKeys {
  readonly #verdicts = new Map<ts.Node, boolean | undefined>(); // undefined: never reached

  constructor(deferred: Iterable<ts.Node>) {
    for (const node of deferred) this.#verdicts.set(node, undefined);
  }

  check(node: ts.Node, key: AbstractValue): void {
    if (!this.#verdicts.has(node)) return;
    this.#verdicts.set(node, this.#verdicts.get(node) !== false && isNumber(key));
  }

  /** Whether the key at `node` was a number on every visit, and it was visited. */
  surelyNumeric(node: ts.Node): boolean {
    return this.#verdicts.get(node) === true;
  }
}
