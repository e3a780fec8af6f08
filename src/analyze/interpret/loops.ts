import { ts } from "../compile/typescript.js";
import type { AbstractValue, CountRange, Provenance } from "../../model/index.js";
import { bindName } from "./bind.js";
import { evaluateExpression } from "./expressions.js";
import type { Interpreter } from "./interpreter.js";
import { asArray, constant, derived, join, provenanceOf, singleArray } from "../domain/lattice.js";
import { truthy } from "../domain/operators.js";
import { skipOuter } from "../compile/skip-outer.js";
import { declare, runStatement } from "./statements.js";
import { joinStates, type Flow, type State } from "./state.js";
import { iterated } from "../domain/values.js";
import { MAX_UNROLL_PER_LOOP, MAX_WIDENING_ROUNDS } from "../limits.js";

/**
 * Loops are unrolled while the analysis knows exactly how many iterations remain (a constant array,
 * a condition that evaluates to a known boolean), up to MAX_UNROLL_PER_LOOP iterations and while the
 * analysis's allowance of unrolled iterations lasts (`unroll`). Otherwise every
 * variable the loop writes becomes unknown, one iteration is interpreted from that state, and its
 * counts are multiplied by the possible number of iterations (unbounded unless the length of the
 * iterated array is bounded).
 */

/** Whether `value`'s provenance already includes all of `provenance`. */
function covers(value: AbstractValue | undefined, provenance: Provenance[]): boolean {
  if (value === undefined) return true;
  const have = new Set(provenanceOf(value).map((p) => `${p.untrusted}:${p.source}`));
  return provenance.every((p) => have.has(`${p.untrusted}:${p.source}`));
}

interface Exits {
  breaks?: State;
  returns?: State;
  returned?: AbstractValue;
}

/** One unrolled iteration: returns the state the next one starts from, collecting exits. */
function step(flow: Flow, exits: Exits): State | undefined {
  exits.breaks = joinStates(exits.breaks, flow.breaks);
  exits.returns = joinStates(exits.returns, flow.returns);
  if (flow.returned !== undefined)
    exits.returned = exits.returned === undefined ? flow.returned : join(exits.returned, flow.returned);
  return joinStates(flow.normal, flow.continues);
}

function done(normal: State | undefined, exits: Exits): Flow {
  return { normal: joinStates(normal, exits.breaks), returns: exits.returns, returned: exits.returned };
}

/** The generic case: any number of iterations within `iterations`, starting from `state`. */
function widened(
  it: Interpreter,
  loop: ts.Node,
  state: State,
  iterations: CountRange,
  iteration: (s: State) => Flow,
  exits: Exits,
): Flow {
  const written = it.scan.writtenWithin(loop);
  const counts = new Map(state.counts);
  let seen = new Map<ts.Symbol, Provenance[]>();
  let start = it.vars.widen(state, written, "a value changed in a loop", seen);
  let flow: Flow = {};
  // Re-run until the provenance written in the body is already in the widened values (at most a few rounds).
  for (let round = 0; round < MAX_WIDENING_ROUNDS; round++) {
    state.counts = new Map(counts);
    const { result, observed } = it.vars.observe(() => it.counts.repeat(state, start, iterations, iteration));
    flow = result;
    if ([...observed].every(([symbol, p]) => !written.has(symbol) || covers(start.env.get(symbol), p))) break;
    seen = observed;
    start = it.vars.widen(start, written, "a value changed in a loop", seen);
  }
  const after = (): State => ({ env: new Map(start.env), counts: new Map(state.counts) });
  step({ returns: flow.returns === undefined ? undefined : after(), returned: flow.returned }, exits);
  return done(after(), { ...exits, breaks: undefined });
}

function bindLoopVariable(it: Interpreter, statement: ts.ForOfStatement, value: AbstractValue, state: State): void {
  const init = statement.initializer;
  if (ts.isVariableDeclarationList(init) && init.declarations.length === 1)
    bindName(it, init.declarations[0]!.name, value, state);
  else it.unsupported(init, "this for...of target");
}

/**
 * for...of over an array or a string (its code points). An array the body changes in place is
 * iterated as JavaScript does, by index up to its current length: each iteration reads the array
 * as the loop has changed it, any number of times.
 */
export function runForOf(it: Interpreter, statement: ts.ForOfStatement, state: State): Flow {
  const value = evaluateExpression(it, statement.expression, state);
  const items = iterated(value);
  if (items === undefined) it.counts.mayThrow(state); // not iterable
  const iterable = items ?? value;
  const body = (s: State, element: AbstractValue): Flow => {
    bindLoopVariable(it, statement, element, s);
    return runStatement(it, statement.statement, s);
  };
  const exits: Exits = {};
  const changed = changedInBody(it, statement);
  if (changed !== undefined) {
    const whole = ts.isIdentifier(skipOuter(statement.expression)); // not its keys(), values() or entries()
    const elementNow = (s: State): AbstractValue => {
      const now = it.vars.read(s, changed);
      const element = whole ? asArray(iterated(now) ?? now)?.element : undefined;
      return element ?? derived([now], "an element of a collection");
    };
    it.influence.add(iterable);
    return widened(it, statement, state, { min: 0, max: null }, (s) => body(s, elementNow(s)), exits);
  }
  const only = singleArray(iterable);
  const view = asArray(iterable);
  const known =
    view !== undefined && view.length.min === view.length.max && view.length.min <= MAX_UNROLL_PER_LOOP
      ? view.length.min
      : undefined;
  const exact =
    only !== undefined
      ? only.map((v) => constant(v))
      : known !== undefined
        ? Array<AbstractValue>(known).fill(view!.element)
        : undefined;
  if (exact !== undefined && exact.length <= MAX_UNROLL_PER_LOOP && it.unrolling.take(exact.length)) {
    let current: State | undefined = state;
    for (const element of exact) {
      if (current === undefined) break;
      current = step(body(current, element), exits);
    }
    return done(current, exits);
  }
  const element = view?.element ?? derived([iterable], "an element of a collection");
  it.influence.add(iterable); // how many times the body runs depends on it
  return widened(it, statement, state, view?.length ?? { min: 0, max: null }, (s) => body(s, element), exits);
}

/**
 * The variable iterated over, when the loop body changes it in place: an array, or a Map or Set
 * walked itself or by its keys(), values() or entries() (their iterators see entries added or
 * deleted on the way).
 */
function changedInBody(it: Interpreter, statement: ts.ForOfStatement): ts.Symbol | undefined {
  let target = skipOuter(statement.expression);
  const callee = ts.isCallExpression(target) ? skipOuter(target.expression) : undefined;
  if (
    callee !== undefined &&
    ts.isPropertyAccessExpression(callee) &&
    ["keys", "values", "entries"].includes(callee.name.text)
  )
    target = skipOuter(callee.expression);
  const symbol = ts.isIdentifier(target) ? it.checker.getSymbolAtLocation(target) : undefined;
  return symbol !== undefined && it.scan.mutatedWithin(statement.statement).has(symbol) ? symbol : undefined;
}

/** Shared by for and while: unroll while the condition is known, then widen. */
function conditional(
  it: Interpreter,
  loop: ts.Node,
  state: State,
  condition: ts.Expression | undefined,
  body: ts.Statement,
  next: ts.Expression | undefined,
  bodyFirst: boolean,
): Flow {
  const exits: Exits = {};
  const iterate = (s: State): State | undefined => {
    const after = step(runStatement(it, body, s), exits);
    if (after !== undefined && next !== undefined) evaluateExpression(it, next, after);
    return after;
  };
  let current: State | undefined = bodyFirst ? iterate(state) : state;
  for (let i = 0; i < MAX_UNROLL_PER_LOOP && current !== undefined; i++) {
    const value = condition === undefined ? constant(true) : evaluateExpression(it, condition, current);
    const t = truthy(value);
    if (t === "no") return done(current, exits);
    if (t === "maybe") it.influence.add(value);
    if (t === "maybe" || !it.unrolling.take(1)) break;
    current = iterate(current);
  }
  if (current === undefined) return done(undefined, exits);
  return widened(
    it,
    loop,
    current,
    { min: 0, max: null },
    (s) => {
      if (condition !== undefined) it.influence.add(evaluateExpression(it, condition, s));
      const flow = runStatement(it, body, s);
      const after = joinStates(flow.normal, flow.continues);
      if (after !== undefined && next !== undefined) evaluateExpression(it, next, after);
      return { ...flow, normal: after, continues: undefined };
    },
    exits,
  );
}

export function runFor(it: Interpreter, statement: ts.ForStatement, state: State): Flow {
  const init = statement.initializer;
  if (init !== undefined) {
    if (ts.isVariableDeclarationList(init)) declare(it, init, state);
    else evaluateExpression(it, init, state);
  }
  return conditional(it, statement, state, statement.condition, statement.statement, statement.incrementor, false);
}

export function runWhile(it: Interpreter, statement: ts.WhileStatement, state: State): Flow {
  return conditional(it, statement, state, statement.expression, statement.statement, undefined, false);
}

export function runDoWhile(it: Interpreter, statement: ts.DoStatement, state: State): Flow {
  return conditional(it, statement, state, statement.expression, statement.statement, undefined, true);
}
