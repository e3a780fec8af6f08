import type { ts } from "../compile/typescript.js";
import type { CountRange } from "../../model/index.js";
import type { CallSites } from "./call-sites.js";
import { countOf, emptyState, joinStates, type Flow, type State } from "./state.js";

/**
 * How many times each trusted call site runs, beyond what the state at a program point says: the
 * accumulators that give a `catch` block (and the end of the run) the largest counts reached before
 * any possible throw, the counts at the points where an exception may be thrown, and the scaling
 * of a repeated body's counts.
 */
export class Counts {
  #accumulators: State[] = [];
  readonly #throwSinks: { at?: State }[] = [];

  readonly #sites: CallSites;

  constructor(sites: CallSites) {
    this.#sites = sites;
  }

  /** One more run of the trusted call site `call` on the paths that reach `state`. */
  count(state: State, call: ts.CallExpression): void {
    const c = countOf(state, call);
    state.counts.set(call, { min: c.min + 1, max: c.max === null ? null : c.max + 1 });
    this.#remember(state);
  }

  /** Run `body` with a fresh accumulator on top of the open ones; returns its result and the accumulator. */
  accumulate<T>(body: () => T, isolated = false): { result: T; acc: State } {
    const acc = emptyState();
    const saved = this.#accumulators;
    this.#accumulators = isolated ? [acc] : [...saved, acc];
    try {
      return { result: body(), acc };
    } finally {
      this.#accumulators = saved;
    }
  }

  /**
   * Run one iteration of something repeated `iterations` times (a loop body, a callback, an escaped
   * function) from `start` with counts from zero, then add the scaled counts to `state`.
   * Minimums stay as they were: any iteration may be the last.
   */
  repeat(state: State, start: State, iterations: CountRange, once: (s: State) => Flow): Flow {
    const zero: State = { env: new Map(start.env), counts: new Map() };
    const { result: flow, acc } = this.accumulate(() => once(zero), true);
    const perIteration = [acc, flow.normal, flow.continues, flow.breaks, flow.returns].reduce<State | undefined>(
      (a, b) => joinStates(a, b),
      undefined,
    );
    for (const [site, range] of perIteration?.counts ?? []) {
      const current = countOf(state, site);
      const b = range.max;
      let max: number | null;
      if (current.max === null || b === null) max = null;
      else if (iterations.max === null) max = b === 0 ? current.max : null;
      else max = current.max + iterations.max * b;
      state.counts.set(site, { min: current.min, max });
    }
    this.#remember(state);
    // Any iteration may follow any other: what influenced a later one influences the earlier calls.
    for (const site of perIteration?.counts.keys() ?? []) this.#sites.revisited(site as ts.CallExpression);
    return flow;
  }

  /** A point where an exception may be thrown: each open sink joins the counts it may leave with. */
  mayThrow(state: State): void {
    // A copy: the first point would otherwise keep the live map, and later calls would count at it.
    for (const sink of this.#throwSinks)
      sink.at = joinStates(sink.at, { env: new Map(), counts: new Map(state.counts) });
  }

  /** Run `body`, collecting the join of the states at every point where it may throw (undefined: none). */
  collectThrows<T>(body: () => T): { result: T; thrown: State | undefined } {
    const sink: { at?: State } = {};
    this.#throwSinks.push(sink);
    try {
      return { result: body(), thrown: sink.at };
    } finally {
      this.#throwSinks.pop();
    }
  }

  /** Join `state`'s counts into every open accumulator (each open try block, and the whole run). */
  #remember(state: State): void {
    for (const acc of this.#accumulators) {
      const joined = joinStates({ env: new Map(), counts: acc.counts }, { env: new Map(), counts: state.counts })!;
      acc.counts = joined.counts;
    }
  }
}
