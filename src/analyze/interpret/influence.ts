import type { AbstractValue, Provenance } from "../../model/index.js";
import { provenanceKey } from "../../constraint/index.js";
import { mergeProvenance, provenanceOf } from "../domain/lattice.js";
import { resultView } from "../domain/result-view.js";

/**
 * Every source whose data the program has branched, looped, chosen or compared on so far, in the
 * order of the analysis (which follows the program's). It only grows: a variable set in a branch
 * over untrusted data carries that influence to every later use, and counting every later call
 * as influenced is the sound over-approximation of that without labels on constants.
 */
export class Influence {
  #sources: Provenance[] = []; // replaced, never changed in place: call sites keep snapshots
  readonly #keys = new Set<string>();
  /** Every trusted call's result source produced so far: what a caught exception may depend on. */
  #results: Provenance[] = [];

  /** The program's control now depends on `value`: its sources influence every later call. */
  add(value: AbstractValue): void {
    this.#addSources(provenanceOf(value));
  }

  /**
   * A trusted call's result, with its sources noted for `caught`: `own` its op's, which the parts read from it narrow
   * (see resultView).
   */
  result(own: Provenance[], others: Provenance[]): AbstractValue {
    this.#results = mergeProvenance([this.#results, own, others]);
    return resultView(own, others);
  }

  /** A catch block runs: whether it does may depend on any result read so far. */
  caught(): void {
    this.#addSources(this.#results);
  }

  /** Every source that has steered control so far (a snapshot: later sources make a new list). */
  soFar(): Provenance[] {
    return this.#sources;
  }

  #addSources(provenance: readonly Provenance[]): void {
    const added = provenance.filter((p) => {
      const key = provenanceKey(p);
      if (this.#keys.has(key)) return false;
      this.#keys.add(key);
      return true;
    });
    if (added.length > 0) this.#sources = [...this.#sources, ...added];
  }
}
