import type { AbstractValue, Provenance } from "../../model/index.js";
import { provenanceKey } from "../../constraint/index.js";
import { derived, provenanceOf } from "../domain/lattice.js";

/**
 * Where the values written into objects the analysis does not follow come from (an object with two
 * names, a nested field, a parameter): any object read may hold them. `assumed` is what a run
 * assumes from the start (a write may come later in the analysis than a read that sees it at run
 * time), `seen` what it wrote; the analysis runs again until what it saw was assumed.
 */
export class Heap {
  #seenSources: Provenance[] = [];
  readonly #seenKeys = new Set<string>();

  constructor(
    /** Whether the pre-pass found objects it does not follow (otherwise nothing is noted). */
    readonly opaque: boolean,
    readonly assumed: Provenance[],
  ) {}

  /** Values were stored into an object the analysis does not follow. */
  write(written: AbstractValue[]): void {
    if (!this.opaque) return; // every object is followed: nothing to note
    for (const p of provenanceOf(derived(written, "a value stored in an object"))) {
      const key = provenanceKey(p);
      if (this.#seenKeys.has(key)) continue;
      this.#seenKeys.add(key);
      this.#seenSources = [...this.#seenSources, p];
    }
  }

  /** What this run stored into objects it does not follow. */
  seen(): Provenance[] {
    return this.#seenSources;
  }

  /** Whether this run stored nothing it had not assumed. */
  settled(): boolean {
    const known = new Set(this.assumed.map(provenanceKey));
    return this.#seenSources.every((p) => known.has(provenanceKey(p)));
  }
}
