import { ts } from "../compile/typescript.js";
import { bindName } from "./bind.js";
import { evaluate } from "./expressions.js";
import type { Interpreter } from "./interpreter.js";
import { unknown } from "../domain/lattice.js";
import { runDoWhile, runFor, runForOf, runWhile } from "./loops.js";
import { truthy } from "../domain/operators.js";
import { skipOuter } from "../compile/skip-outer.js";
import { clone, joinFlows, joinStates, joinValues, type Flow, type State } from "./state.js";

/** Run statements in order; abrupt completions (break, continue, return) are collected as they happen. */
export function runBlock(it: Interpreter, statements: readonly ts.Statement[], state: State): Flow {
  const out: Flow = {};
  let current: State | undefined = state;
  for (const statement of statements) {
    if (current === undefined) break;
    const flow = runStatement(it, statement, current);
    out.breaks = joinStates(out.breaks, flow.breaks);
    out.continues = joinStates(out.continues, flow.continues);
    out.returns = joinStates(out.returns, flow.returns);
    if (flow.returned !== undefined) out.returned = out.returned === undefined ? flow.returned : joinFlows({ returned: out.returned }, { returned: flow.returned }).returned;
    current = flow.normal;
  }
  out.normal = current;
  return out;
}

export function runStatement(it: Interpreter, statement: ts.Statement, state: State): Flow {
  it.step(statement);
  if (ts.isBlock(statement)) return runBlock(it, statement.statements, state);
  if (ts.isExpressionStatement(statement)) {
    evaluate(it, statement.expression, state);
    return { normal: state };
  }
  if (ts.isVariableStatement(statement)) {
    declare(it, statement.declarationList, state);
    return { normal: state };
  }
  if (ts.isIfStatement(statement)) {
    const condition = evaluate(it, statement.expression, state);
    const t = truthy(condition);
    if (t === "yes") return runStatement(it, statement.thenStatement, state);
    const otherwise = (s: State): Flow => (statement.elseStatement === undefined ? { normal: s } : runStatement(it, statement.elseStatement, s));
    if (t === "no") return otherwise(state);
    it.influencedBy(condition);
    const other = clone(state);
    return joinFlows(runStatement(it, statement.thenStatement, state), otherwise(other));
  }
  if (ts.isReturnStatement(statement)) {
    const returned = statement.expression === undefined ? unknown("undefined") : evaluate(it, statement.expression, state);
    return { returns: state, returned };
  }
  if (ts.isThrowStatement(statement)) {
    evaluate(it, statement.expression, state);
    it.mayThrow(state);
    return {};
  }
  if (ts.isBreakStatement(statement)) return { breaks: state };
  if (ts.isContinueStatement(statement)) return { continues: state };
  if (ts.isTryStatement(statement)) return runTry(it, statement, state);
  if (ts.isForOfStatement(statement)) return runForOf(it, statement, state);
  if (ts.isForStatement(statement)) return runFor(it, statement, state);
  if (ts.isWhileStatement(statement)) return runWhile(it, statement, state);
  if (ts.isDoStatement(statement)) return runDoWhile(it, statement, state);
  if (ts.isEmptyStatement(statement) || ts.isFunctionDeclaration(statement) || ts.isTypeAliasDeclaration(statement) || ts.isInterfaceDeclaration(statement)) {
    return { normal: state };
  }
  it.unsupported(statement, ts.SyntaxKind[statement.kind]);
  return { normal: state };
}

/** `const`/`let` declarations. A `const` bound to a function is not evaluated: its uses decide (see calls.ts). */
export function declare(it: Interpreter, list: ts.VariableDeclarationList, state: State): void {
  for (const declaration of list.declarations) {
    const init = declaration.initializer;
    if (init !== undefined && list.flags & ts.NodeFlags.Const && isFunctionExpression(init)) continue;
    const value = init === undefined ? unknown("undefined") : evaluate(it, init, state);
    bindName(it, declaration.name, value, state);
  }
}

function isFunctionExpression(e: ts.Expression): boolean {
  const inner = skipOuter(e);
  return ts.isArrowFunction(inner) || ts.isFunctionExpression(inner);
}

/**
 * try/catch/finally. The catch block may start after any point of the try block: from the try's
 * entry state with every variable written in the try block unknown, and with the largest counts the
 * try block reached (its accumulator) but the entry's minimums. An exception may leave the catch
 * block at any point too (a rethrow), with what it wrote so far. The finally block runs after each
 * way the rest can end; when it ends normally that way goes on (a return keeps its value), and when
 * it breaks, continues or returns itself, that replaces the way in, an exception included.
 */
function runTry(it: Interpreter, statement: ts.TryStatement, state: State): Flow {
  const entry = clone(state);
  const { result: observedTry, observed } = it.observe(() => it.accumulate(() => runBlock(it, statement.tryBlock.statements, state)));
  const { result: tried, acc } = observedTry;
  const widened = it.widen(entry, it.scan.writtenWithin(statement.tryBlock), "a value changed in a try block", observed);
  const thrown = joinStates(widened, { env: widened.env, counts: acc.counts })!;
  let flow = tried;
  let escaping = thrown; // the state an exception may leave the whole statement with
  const clause = statement.catchClause;
  if (clause !== undefined) {
    const start = clone(thrown);
    it.caught();
    if (clause.variableDeclaration !== undefined) bindName(it, clause.variableDeclaration.name, unknown("a caught error", true), start);
    const { result: observedCatch, observed: inCatch } = it.observe(() => it.accumulate(() => runBlock(it, clause.block.statements, clone(start))));
    const { result: caught, acc: catchAcc } = observedCatch;
    flow = joinFlows(tried, caught);
    const rethrown = it.widen(start, it.scan.writtenWithin(clause.block), "a value changed in a catch block", inCatch);
    escaping = joinStates(thrown, { env: rethrown.env, counts: catchAcc.counts })!;
  }
  if (statement.finallyBlock === undefined) return flow;
  const final = statement.finallyBlock.statements;
  const after = (s: State | undefined, kind: "normal" | "breaks" | "continues" | "returns" | "throws"): Flow => {
    if (s === undefined) return {};
    const f = runBlock(it, final, s);
    const out: Flow = { breaks: f.breaks, continues: f.continues, returns: f.returns, returned: f.returned };
    if (f.normal === undefined) return out;
    if (kind === "throws") it.mayThrow(f.normal); // the exception propagates
    else out[kind] = joinStates(out[kind], f.normal);
    if (kind === "returns") out.returned = joinValues(out.returned, flow.returned);
    return out;
  };
  const ways = [after(flow.normal, "normal"), after(flow.breaks, "breaks"), after(flow.continues, "continues"), after(flow.returns, "returns"), after(clone(escaping), "throws")];
  return ways.reduce(joinFlows, {});
}
