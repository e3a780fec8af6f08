import type { ts } from "../compile/typescript.js";
import type { AbstractValue, CountRange } from "../../model/index.js";
import { join, joinCounts } from "../domain/lattice.js";

/**
 * The abstract state at one program point: variable values, and for each trusted call site how
 * many times it has run so far on the paths that reach this point.
 */
export interface State {
  env: Map<ts.Symbol, AbstractValue>;
  counts: Map<ts.Node, CountRange>;
}

/** How a statement can end: each kind with the join of the states that end that way. */
export interface Flow {
  normal?: State;
  breaks?: State;
  continues?: State;
  returns?: State;
  returned?: AbstractValue;
}

export function emptyState(): State {
  return { env: new Map(), counts: new Map() };
}

export function clone(state: State): State {
  return { env: new Map(state.env), counts: new Map(state.counts) };
}

const ZERO: CountRange = { min: 0, max: 0 };

export function countOf(state: State, site: ts.Node): CountRange {
  return state.counts.get(site) ?? ZERO;
}

/** The join of two possibly unreachable states; a variable bound on one side only stays as it is. */
export function joinStates(a: State | undefined, b: State | undefined): State | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const env = new Map(a.env);
  for (const [symbol, value] of b.env) {
    const other = env.get(symbol);
    env.set(symbol, other === undefined ? value : join(other, value));
  }
  const counts = new Map<ts.Node, CountRange>();
  for (const site of new Set([...a.counts.keys(), ...b.counts.keys()]))
    counts.set(site, joinCounts(countOf(a, site), countOf(b, site)));
  return { env, counts };
}

export function joinValues(a: AbstractValue | undefined, b: AbstractValue | undefined): AbstractValue | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return join(a, b);
}

/** Copy `from` into `into` (states are mutated in place while an expression is evaluated). */
export function assign(into: State, from: State): void {
  into.env = from.env;
  into.counts = from.counts;
}

export function joinFlows(a: Flow, b: Flow): Flow {
  return {
    normal: joinStates(a.normal, b.normal),
    breaks: joinStates(a.breaks, b.breaks),
    continues: joinStates(a.continues, b.continues),
    returns: joinStates(a.returns, b.returns),
    returned: joinValues(a.returned, b.returned),
  };
}
