import { ts } from "../compile/typescript.js";
import { bindName } from "./bind.js";
import { evaluateExpression } from "./expressions.js";
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
    if (flow.returned !== undefined)
      out.returned =
        out.returned === undefined
          ? flow.returned
          : joinFlows({ returned: out.returned }, { returned: flow.returned }).returned;
    current = flow.normal;
  }
  out.normal = current;
  return out;
}

type StatementHandler<N extends ts.Statement> = (it: Interpreter, statement: N, state: State) => Flow;
const on = <N extends ts.Statement>(handler: StatementHandler<N>): StatementHandler<ts.Statement> =>
  handler as StatementHandler<ts.Statement>;
const nothing = on((_it, _statement, state) => ({ normal: state }));

/** How each statement kind runs; the construct check allows exactly the kinds listed here. */
export const STATEMENTS: ReadonlyMap<ts.SyntaxKind, StatementHandler<ts.Statement>> = new Map([
  [ts.SyntaxKind.Block, on<ts.Block>((it, statement, state) => runBlock(it, statement.statements, state))],
  [
    ts.SyntaxKind.ExpressionStatement,
    on<ts.ExpressionStatement>((it, statement, state) => {
      evaluateExpression(it, statement.expression, state);
      return { normal: state };
    }),
  ],
  [
    ts.SyntaxKind.VariableStatement,
    on<ts.VariableStatement>((it, statement, state) => {
      declare(it, statement.declarationList, state);
      return { normal: state };
    }),
  ],
  [
    ts.SyntaxKind.IfStatement,
    on<ts.IfStatement>((it, statement, state) => {
      const condition = evaluateExpression(it, statement.expression, state);
      const t = truthy(condition);
      if (t === "yes") return runStatement(it, statement.thenStatement, state);
      const otherwise = (s: State): Flow =>
        statement.elseStatement === undefined ? { normal: s } : runStatement(it, statement.elseStatement, s);
      if (t === "no") return otherwise(state);
      it.influence.add(condition);
      const other = clone(state);
      return joinFlows(runStatement(it, statement.thenStatement, state), otherwise(other));
    }),
  ],
  [
    ts.SyntaxKind.ReturnStatement,
    on<ts.ReturnStatement>((it, statement, state) => {
      const returned =
        statement.expression === undefined ? unknown("undefined") : evaluateExpression(it, statement.expression, state);
      return { returns: state, returned };
    }),
  ],
  [
    ts.SyntaxKind.ThrowStatement,
    on<ts.ThrowStatement>((it, statement, state) => {
      evaluateExpression(it, statement.expression, state);
      it.counts.mayThrow(state);
      return {};
    }),
  ],
  [ts.SyntaxKind.BreakStatement, on((_it, _statement, state) => ({ breaks: state }))],
  [ts.SyntaxKind.ContinueStatement, on((_it, _statement, state) => ({ continues: state }))],
  [ts.SyntaxKind.TryStatement, on(runTry)],
  [ts.SyntaxKind.ForOfStatement, on(runForOf)],
  [ts.SyntaxKind.ForStatement, on(runFor)],
  [ts.SyntaxKind.WhileStatement, on(runWhile)],
  [ts.SyntaxKind.DoStatement, on(runDoWhile)],
  // Declarations that do nothing where they stand: functions run where they are called.
  [ts.SyntaxKind.EmptyStatement, nothing],
  [ts.SyntaxKind.FunctionDeclaration, nothing],
  [ts.SyntaxKind.TypeAliasDeclaration, nothing],
  [ts.SyntaxKind.InterfaceDeclaration, nothing],
]);

export function runStatement(it: Interpreter, statement: ts.Statement, state: State): Flow {
  it.step(statement);
  const handler = STATEMENTS.get(statement.kind);
  if (handler !== undefined) return handler(it, statement, state);
  it.unsupported(statement, ts.SyntaxKind[statement.kind]);
  return { normal: state };
}

/** `const`/`let` declarations. A `const` bound to a function is not evaluated: its uses decide (see calls.ts). */
export function declare(it: Interpreter, list: ts.VariableDeclarationList, state: State): void {
  for (const declaration of list.declarations) {
    const init = declaration.initializer;
    if (init !== undefined && list.flags & ts.NodeFlags.Const && isFunctionExpression(init)) continue;
    const value = init === undefined ? unknown("undefined") : evaluateExpression(it, init, state);
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
  const { result: observedTry, observed } = it.vars.observe(() =>
    it.counts.accumulate(() => runBlock(it, statement.tryBlock.statements, state)),
  );
  const { result: tried, acc } = observedTry;
  const widened = it.vars.widen(
    entry,
    it.scan.writtenWithin(statement.tryBlock),
    "a value changed in a try block",
    observed,
  );
  const thrown = joinStates(widened, { env: widened.env, counts: acc.counts })!;
  let flow = tried;
  let escaping = thrown; // the state an exception may leave the whole statement with
  const clause = statement.catchClause;
  if (clause !== undefined) {
    const start = clone(thrown);
    it.influence.caught();
    if (clause.variableDeclaration !== undefined)
      bindName(it, clause.variableDeclaration.name, unknown("a caught error", true), start);
    const { result: observedCatch, observed: inCatch } = it.vars.observe(() =>
      it.counts.accumulate(() => runBlock(it, clause.block.statements, clone(start))),
    );
    const { result: caught, acc: catchAcc } = observedCatch;
    flow = joinFlows(tried, caught);
    const rethrown = it.vars.widen(
      start,
      it.scan.writtenWithin(clause.block),
      "a value changed in a catch block",
      inCatch,
    );
    escaping = joinStates(thrown, { env: rethrown.env, counts: catchAcc.counts })!;
  }
  if (statement.finallyBlock === undefined) return flow;
  const final = statement.finallyBlock.statements;
  const after = (s: State | undefined, kind: "normal" | "breaks" | "continues" | "returns" | "throws"): Flow => {
    if (s === undefined) return {};
    const f = runBlock(it, final, s);
    const out: Flow = { breaks: f.breaks, continues: f.continues, returns: f.returns, returned: f.returned };
    if (f.normal === undefined) return out;
    if (kind === "throws")
      it.counts.mayThrow(f.normal); // the exception propagates
    else out[kind] = joinStates(out[kind], f.normal);
    if (kind === "returns") out.returned = joinValues(out.returned, flow.returned);
    return out;
  };
  const ways = [
    after(flow.normal, "normal"),
    after(flow.breaks, "breaks"),
    after(flow.continues, "continues"),
    after(flow.returns, "returns"),
    after(clone(escaping), "throws"),
  ];
  return ways.reduce(joinFlows, {});
}
