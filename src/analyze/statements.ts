import { ts } from "./typescript.js";
import { bindName } from "./bind.js";
import { evaluate } from "./expressions.js";
import type { Interpreter } from "./interpreter.js";
import { unknown } from "./lattice.js";
import { runDoWhile, runFor, runForOf, runWhile } from "./loops.js";
import { truthy } from "./operators.js";
import { clone, joinFlows, joinStates, type Flow, type State } from "./state.js";

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
    const t = truthy(evaluate(it, statement.expression, state));
    if (t === "yes") return runStatement(it, statement.thenStatement, state);
    const otherwise = (s: State): Flow => (statement.elseStatement === undefined ? { normal: s } : runStatement(it, statement.elseStatement, s));
    if (t === "no") return otherwise(state);
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
  while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e)) e = e.expression;
  return ts.isArrowFunction(e) || ts.isFunctionExpression(e);
}

/**
 * try/catch/finally. The catch block may start after any point of the try block: from the try's
 * entry state with every variable written in the try block unknown, and with the largest counts the
 * try block reached (its accumulator) but the entry's minimums.
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
    if (clause.variableDeclaration !== undefined) bindName(it, clause.variableDeclaration.name, unknown("a caught error", true), start);
    const { result: caught, acc: catchAcc } = it.accumulate(() => runBlock(it, clause.block.statements, start));
    flow = joinFlows(tried, caught);
    escaping = joinStates(thrown, { env: thrown.env, counts: catchAcc.counts })!;
  }
  if (statement.finallyBlock === undefined) return flow;
  const final = statement.finallyBlock.statements;
  runBlock(it, final, clone(escaping)); // an exception runs the finally block, then propagates
  const after = (s: State | undefined, kind: "normal" | "breaks" | "continues" | "returns"): Flow => {
    if (s === undefined) return {};
    const f = runBlock(it, final, s);
    return f.normal === undefined ? { ...f, normal: undefined } : { ...f, normal: undefined, [kind]: f.normal };
  };
  const parts = [after(flow.normal, "normal"), after(flow.breaks, "breaks"), after(flow.continues, "continues"), after(flow.returns, "returns")];
  const joined = parts.reduce(joinFlows, {});
  if (flow.returned !== undefined && joined.returned === undefined) joined.returned = flow.returned;
  return joined;
}
