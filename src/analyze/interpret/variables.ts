import type { ts } from "../compile/typescript.js";
import type { AbstractValue, Provenance } from "../../model/index.js";
import type { Scan } from "../compile/scan.js";
import { derived, mergeProvenance, provenanceOf, unknown } from "../domain/lattice.js";
import type { Counts } from "./counts.js";
import type { Heap } from "./heap.js";
import { clone, type State } from "./state.js";

/**
 * Reads and writes of variables: what the pre-pass says about each read (volatile, or an object
 * changed through another name), and observers that learn what flows into each variable while a
 * block runs, so that widening keeps the provenance of every value the block may write.
 */
export class Variables {
  readonly #observers: Map<ts.Symbol, Provenance[]>[] = [];

  readonly #scan: Scan;
  readonly #heap: Heap;
  readonly #counts: Counts;

  constructor(scan: Scan, heap: Heap, counts: Counts) {
    this.#scan = scan;
    this.#heap = heap;
    this.#counts = counts;
  }

  /** A variable's value at this point, unless the pre-pass says it cannot be trusted. */
  read(state: State, symbol: ts.Symbol): AbstractValue {
    if (this.#scan.volatile.has(symbol)) return unknown(`${symbol.name}, changed by a callback`, true);
    const value = state.env.get(symbol);
    if (value === undefined) {
      this.#counts.mayThrow(state); // read before its declaration ran: a ReferenceError
      return unknown(`${symbol.name} before its value is known`);
    }
    if (this.#heap.opaque && holdsObject(value))
      return derived(
        [value, { kind: "unknown", provenance: this.#heap.assumed }],
        `${symbol.name}, an object changed elsewhere`,
      );
    return value;
  }

  /** Every variable write goes through here, so that open observers learn what may flow into it. */
  set(state: State, symbol: ts.Symbol, value: AbstractValue): void {
    state.env.set(symbol, value);
    const provenance = provenanceOf(value);
    for (const o of this.#observers) o.set(symbol, mergeProvenance([o.get(symbol) ?? [], provenance]));
  }

  /** Run `body`, recording the provenance of every value written to each variable meanwhile. */
  observe<T>(body: () => T): { result: T; observed: Map<ts.Symbol, Provenance[]> } {
    const observed = new Map<ts.Symbol, Provenance[]>();
    this.#observers.push(observed);
    try {
      return { result: body(), observed };
    } finally {
      this.#observers.pop();
    }
  }

  /**
   * `state` with `symbols` set to unknown: what they held, plus whatever `observed` says may be
   * written to them, keeps its provenance (untrusted data stays untrusted).
   */
  widen(state: State, symbols: Iterable<ts.Symbol>, source: string, observed: Map<ts.Symbol, Provenance[]>): State {
    const out = clone(state);
    for (const symbol of symbols) {
      const before = out.env.get(symbol);
      if (before === undefined) continue;
      const provenance = mergeProvenance([
        [{ source, untrusted: false }],
        provenanceOf(before),
        observed.get(symbol) ?? [],
      ]);
      out.env.set(symbol, { kind: "unknown", provenance });
    }
    return out;
  }

  /**
   * The state a callback or detached async call starts from: variables written anywhere may have
   * changed, to anything the program can produce, so they count as untrusted.
   */
  havoc(state: State): State {
    const out = clone(state);
    for (const symbol of this.#scan.mutable)
      if (out.env.has(symbol)) out.env.set(symbol, unknown("a variable that may have changed", true));
    return out;
  }
}

/** Whether `value` may be an object (an unknown may be: one from a trusted call, a collection). */
function holdsObject(value: AbstractValue): boolean {
  if (value.kind === "array" || value.kind === "record" || value.kind === "unknown") return true;
  return value.kind === "const" && value.values.some((v) => v !== null && typeof v === "object");
}
