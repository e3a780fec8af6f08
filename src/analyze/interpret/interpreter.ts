import { ts } from "../compile/typescript.js";
import type { AbstractValue, CountRange, Provenance } from "../../model/index.js";
import type { Diagnostic } from "../../model/index.js";
import type { Budget } from "../budget.js";
import type { LoadedAction, ManifestSet } from "../../manifest/index.js";
import { diagnosticAt } from "../diagnostic.js";
import { provenanceKey } from "../../constraint/index.js";
import { resultView } from "../domain/result-view.js";
import { derived, isNumber, join, mergeProvenance, provenanceOf, unknown } from "../domain/lattice.js";
import { nullish } from "../domain/operators.js";
import type { Scan } from "../compile/scan.js";
import { assign, clone, countOf, emptyState, joinStates, type Flow, type State } from "./state.js";
import { MAX_CALL_DEPTH, MAX_UNROLLED_IN_ALL } from "../limits.js";

/**
 * One trusted call site as the interpreter saw it: its action, the join of its arguments over
 * every visit, and the sources that had influenced control by then (see `influence`).
 */
export interface SiteRecord {
  action: LoadedAction;
  args: Record<string, AbstractValue>;
  influence: Provenance[];
  /** Recorded inside a function that escaped: it may run at any later time, under any influence. */
  escaped: boolean;
}

interface Frame {
  fn: ts.Node;
  escaped: boolean;
}

/**
 * The shared context of the abstract interpreter. Statements, expressions and calls are
 * interpreted by the functions in statements.ts, expressions.ts and calls.ts; this class holds
 * what they share: the checker, the pre-pass, the call sites seen, the accumulators that give a
 * `catch` block (and the end of the run) the largest counts reached before any possible throw,
 * and the stack of functions being interpreted (to cut recursion).
 */
export class Interpreter {
  readonly sites = new Map<ts.CallExpression, SiteRecord>();
  readonly diagnostics: Diagnostic[] = [];
  private accumulators: State[] = [];
  private readonly stack: Frame[] = [];
  private readonly promises = new WeakMap<AbstractValue, AbstractValue>();
  private observers: Map<ts.Symbol, Provenance[]>[] = [];
  private throwSinks: { at?: State }[] = [];
  private unrollable = MAX_UNROLLED_IN_ALL; // what is left of the unroll allowance
  private chains: State[][] = [];
  /**
   * Every source whose data the program has branched, looped, chosen or compared on so far, in the
   * order of the analysis (which follows the program's). It only grows: a variable set in a branch
   * over untrusted data carries that influence to every later use, and counting every later call
   * as influenced is the sound over-approximation of that without labels on constants.
   */
  private influence: Provenance[] = []; // replaced, never changed in place: sites keep snapshots
  private readonly influenceKeys = new Set<string>();
  /** Every trusted call's result source produced so far: what a caught exception may depend on. */
  private results: Provenance[] = [];
  /**
   * Where the values written into objects the analysis does not follow come from (an object with
   * two names, a nested field, a parameter): any object read may hold them. `heapAssumed` is what a
   * run assumes from the start (a write may come later in the analysis than a read that sees it at
   * run time), `heapSeen` what it wrote; the analysis runs again until what it saw was assumed.
   */
  heapAssumed: Provenance[] = [];
  heapSeen: Provenance[] = [];
  private readonly heapKeys = new Set<string>();
  /** Computed member accesses whose key must be shown to be a number here: each one's verdict over every visit (undefined: never reached). */
  readonly numericKeys = new Map<ts.Node, boolean | undefined>();

  constructor(
    readonly checker: ts.TypeChecker,
    readonly set: ManifestSet,
    readonly file: ts.SourceFile,
    readonly scan: Scan,
    readonly libFile: string,
    readonly budget: Budget,
  ) {}

  /** Spend one step of the analysis budget at `node` (every statement and expression evaluated). */
  step(node: ts.Node): void {
    this.budget.step(node);
  }

  /** Count one run of a trusted call site and join its arguments into the site's record. */
  recordCall(state: State, call: ts.CallExpression, action: LoadedAction, args: Record<string, AbstractValue>): void {
    const seen = this.sites.get(call);
    const escaped = this.stack.some((f) => f.escaped);
    // Influence only grows, so the latest visit's includes every earlier one's.
    if (seen === undefined) this.sites.set(call, { action, args, influence: this.influence, escaped });
    else {
      seen.influence = this.influence;
      seen.escaped ||= escaped;
      const merged: Record<string, AbstractValue> = {};
      for (const key of new Set([...Object.keys(seen.args), ...Object.keys(args)])) {
        const a = seen.args[key];
        const b = args[key];
        merged[key] = a !== undefined && b !== undefined ? join(a, b) : unknown("an argument given on some calls only");
      }
      seen.args = merged;
    }
    const c = countOf(state, call);
    state.counts.set(call, { min: c.min + 1, max: c.max === null ? null : c.max + 1 });
    this.remember(state);
  }

  /** Join `state`'s counts into every open accumulator (each open try block, and the whole run). */
  remember(state: State): void {
    for (const acc of this.accumulators) {
      const joined = joinStates({ env: new Map(), counts: acc.counts }, { env: new Map(), counts: state.counts })!;
      acc.counts = joined.counts;
    }
  }

  /** Run `body` with a fresh accumulator on top of the open ones; returns its result and the accumulator. */
  accumulate<T>(body: () => T, isolated = false): { result: T; acc: State } {
    const acc = emptyState();
    const saved = this.accumulators;
    this.accumulators = isolated ? [acc] : [...saved, acc];
    try {
      return { result: body(), acc };
    } finally {
      this.accumulators = saved;
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
    const perIteration = [acc, flow.normal, flow.continues, flow.breaks, flow.returns].reduce<State | undefined>((a, b) => joinStates(a, b), undefined);
    for (const [site, range] of perIteration?.counts ?? []) {
      const current = countOf(state, site);
      const b = range.max;
      let max: number | null;
      if (current.max === null || b === null) max = null;
      else if (iterations.max === null) max = b === 0 ? current.max : null;
      else max = current.max + iterations.max * b;
      state.counts.set(site, { min: current.min, max });
    }
    this.remember(state);
    // Any iteration may follow any other: what influenced a later one influences the earlier calls.
    for (const site of perIteration?.counts.keys() ?? []) this.influenceSite(site as ts.CallExpression);
    return flow;
  }

  /** The program's control now depends on `value`: its sources influence every later call. */
  influencedBy(value: AbstractValue): void {
    this.addInfluence(provenanceOf(value));
  }

  private addInfluence(provenance: readonly Provenance[]): void {
    const added = provenance.filter((p) => {
      const key = provenanceKey(p);
      if (this.influenceKeys.has(key)) return false;
      this.influenceKeys.add(key);
      return true;
    });
    if (added.length > 0) this.influence = [...this.influence, ...added];
  }

  /** A trusted call's result, with its sources noted for `caught`: `own` its op's, which the parts read from it narrow (see resultView). */
  result(own: Provenance[], others: Provenance[]): AbstractValue {
    this.results = mergeProvenance([this.results, own, others]);
    return resultView(own, others);
  }

  /** A catch block runs: whether it does may depend on any result read so far. */
  caught(): void {
    this.addInfluence(this.results);
  }

  private influenceSite(call: ts.CallExpression): void {
    const site = this.sites.get(call);
    if (site !== undefined) site.influence = this.influence;
  }

  /** Every source that has steered control so far. */
  influenceSoFar(): Provenance[] {
    return this.influence;
  }

  /** What influenced a call site: an escaped function's calls may run after anything the analysis saw. */
  influenceOf(site: SiteRecord): Provenance[] {
    return site.escaped ? this.influence : site.influence;
  }

  /** A point where an exception may be thrown: each open sink joins the counts it may leave with. */
  mayThrow(state: State): void {
    // A copy: the first point would otherwise keep the live map, and later calls would count at it.
    for (const sink of this.throwSinks) sink.at = joinStates(sink.at, { env: new Map(), counts: new Map(state.counts) });
  }

  /** Run `body`, collecting the join of the states at every point where it may throw (undefined: none). */
  collectThrows<T>(body: () => T): { result: T; thrown: State | undefined } {
    const sink: { at?: State } = {};
    this.throwSinks.push(sink);
    try {
      return { result: body(), thrown: sink.at };
    } finally {
      this.throwSinks.pop();
    }
  }

  /** Every variable write goes through here, so that open observers learn what may flow into it. */
  setVar(state: State, symbol: ts.Symbol, value: AbstractValue): void {
    state.env.set(symbol, value);
    const provenance = provenanceOf(value);
    for (const o of this.observers) o.set(symbol, mergeProvenance([o.get(symbol) ?? [], provenance]));
  }

  /** Run `body`, recording the provenance of every value written to each variable meanwhile. */
  observe<T>(body: () => T): { result: T; observed: Map<ts.Symbol, Provenance[]> } {
    const observed = new Map<ts.Symbol, Provenance[]>();
    this.observers.push(observed);
    try {
      return { result: body(), observed };
    } finally {
      this.observers.pop();
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
      const provenance = mergeProvenance([[{ source, untrusted: false }], provenanceOf(before), observed.get(symbol) ?? []]);
      out.env.set(symbol, { kind: "unknown", provenance });
    }
    return out;
  }

  /** Takes `iterations` unrolled iterations from the allowance; false (nothing taken) when they do not fit: widen instead. */
  unroll(iterations: number): boolean {
    if (iterations > this.unrollable) return false;
    this.unrollable -= iterations;
    return true;
  }

  isOnStack(fn: ts.Node, escaped?: boolean): boolean {
    return this.stack.some((f) => f.fn === fn && (escaped === undefined || f.escaped === escaped));
  }

  within<T>(fn: ts.Node, escaped: boolean, body: () => T): T {
    this.stack.push({ fn, escaped });
    try {
      return body();
    } finally {
      this.stack.pop();
    }
  }

  tooDeep(): boolean {
    return this.stack.length >= MAX_CALL_DEPTH;
  }

  /**
   * The state a callback or detached async call starts from: variables written anywhere may have
   * changed, to anything the program can produce, so they count as untrusted.
   */
  havoc(state: State): State {
    const out = clone(state);
    for (const symbol of this.scan.mutable) if (out.env.has(symbol)) out.env.set(symbol, unknown("a variable that may have changed", true));
    return out;
  }

  /** Values were stored into an object the analysis does not follow (see `heapSeen`). */
  heapWrite(written: AbstractValue[]): void {
    if (!this.scan.heapOpaque) return; // every object is followed: nothing to note
    for (const p of provenanceOf(derived(written, "a value stored in an object"))) {
      const key = provenanceKey(p);
      if (this.heapKeys.has(key)) continue;
      this.heapKeys.add(key);
      this.heapSeen = [...this.heapSeen, p];
    }
  }

  /**
   * A computed member access whose key the pre-pass could not show to be a number: it passes only
   * if the key is one on every visit (a key that is not a number may reach any property).
   */
  checkNumericKey(node: ts.Node, key: AbstractValue): void {
    if (!this.numericKeys.has(node)) return;
    this.numericKeys.set(node, this.numericKeys.get(node) !== false && isNumber(key));
  }

  /** A variable's value at this point, unless the pre-pass says it cannot be trusted. */
  read(state: State, symbol: ts.Symbol): AbstractValue {
    if (this.scan.volatile.has(symbol)) return unknown(`${symbol.name}, changed by a callback`, true);
    const value = state.env.get(symbol);
    if (value === undefined) {
      this.mayThrow(state); // read before its declaration ran: a ReferenceError
      return unknown(`${symbol.name} before its value is known`);
    }
    if (this.scan.heapOpaque && holdsObject(value)) return derived([value, { kind: "unknown", provenance: this.heapAssumed }], `${symbol.name}, an object changed elsewhere`);
    return value;
  }

  promiseOf(resolved: AbstractValue): AbstractValue {
    const provenance = provenanceOf(resolved);
    const promise: AbstractValue = { kind: "unknown", provenance: provenance.length > 0 ? provenance : [{ source: "a promise", untrusted: false }] };
    this.promises.set(promise, resolved);
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
    const resolved = this.promises.get(value);
    if (resolved !== undefined) return resolved;
    const then = value.kind === "record" && Object.hasOwn(value.fields, "then") ? value.fields.then! : undefined;
    if (then !== undefined && then.kind !== "const") return derived([value, unknown("what a then method passed on", true)], "what a then method passed on");
    return value;
  }

  /**
   * Evaluate an optional chain (`a?.b.c(x)`): each `?.` whose left side may be null or undefined
   * skips the rest of the chain, so the chain's value may be undefined and its end state is joined
   * with the state at each skip.
   */
  optionalChain(state: State, body: () => AbstractValue): AbstractValue {
    const skipped: State[] = [];
    this.chains.push(skipped);
    let value: AbstractValue;
    try {
      value = body();
    } finally {
      this.chains.pop();
    }
    if (skipped.length === 0) return value;
    assign(state, skipped.reduce<State>((a, b) => joinStates(a, b)!, state));
    return join(value, unknown("undefined"));
  }

  /** A `?.` link: when `left` may be null or undefined, the rest of the chain may not run. */
  mayShortCircuit(left: AbstractValue, state: State): void {
    if (nullish(left) === "no") return;
    this.influencedBy(left);
    this.chains[this.chains.length - 1]?.push(clone(state));
  }

  isLibDeclaration(node: ts.Node): boolean {
    return node.getSourceFile().fileName === this.libFile;
  }

  unsupported(node: ts.Node, what: string): void {
    this.diagnostics.push(diagnosticAt(this.file, node, "unsupported", `${what} is not supported by the analysis`, what));
  }
}

/** Whether `value` may be an object (an unknown may be: one from a trusted call, a collection). */
function holdsObject(value: AbstractValue): boolean {
  if (value.kind === "array" || value.kind === "record" || value.kind === "unknown") return true;
  return value.kind === "const" && value.values.some((v) => v !== null && typeof v === "object");
}

export type { Flow, State };
