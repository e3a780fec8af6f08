import type { AbstractValue } from "../../model/index.js";
import { derived, provenanceOf, unknown } from "../domain/lattice.js";

/** The promises the interpretation created, each with the value it resolves to. */
export class Promises {
  readonly #resolved = new WeakMap<AbstractValue, AbstractValue>();

  of(resolved: AbstractValue): AbstractValue {
    const provenance = provenanceOf(resolved);
    const promise: AbstractValue = {
      kind: "unknown",
      provenance: provenance.length > 0 ? provenance : [{ source: "a promise", untrusted: false }],
    };
    this.#resolved.set(promise, resolved);
    return promise;
  }

  /**
   * What `await v` (and resolving a promise with v) gives: the value a promise we created resolves
   * to; for an object with a `then` method (a thenable) whatever that method passes on, unknown,
   * and of any source: the method may pass on any value it reaches (a read's result included), as
   * a recursive call may return any argument; anything else itself. (The `then` function itself
   * escaped where it was created.)
   */
  awaited(value: AbstractValue): AbstractValue {
    const resolved = this.#resolved.get(value);
    if (resolved !== undefined) return resolved;
    const then = value.kind === "record" && Object.hasOwn(value.fields, "then") ? value.fields.then! : undefined;
    if (then !== undefined && then.kind !== "const")
      return derived([value, unknown("what a then method passed on", true)], "what a then method passed on");
    return value;
  }
}
