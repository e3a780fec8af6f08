import { ts } from "../compile/typescript.js";
import type { AbstractValue } from "../../model/index.js";
import type { Json } from "../../model/index.js";
import { evaluateCall, evaluateNew, escapeFunction, localFunction } from "./calls.js";
import type { Interpreter } from "./interpreter.js";
import { asRecord, constant, derived, fold, join, unknown } from "../domain/lattice.js";
import { binary, fromTruth, nullish, template, truthy, typeOf, unary } from "../domain/operators.js";
import { valueSymbol } from "../compile/scan.js";
import { skipOuter } from "../compile/skip-outer.js";
import { assign, clone, joinStates, type State } from "./state.js";
import { arrayOf, getElement, getProperty, iterated } from "../domain/values.js";
import { mutateTracked } from "./mutate.js";
import { frozenMemberNames } from "../../environment/index.js";

const FROZEN_MEMBERS = frozenMemberNames();

/** The abstract value of `e`; effects (calls, assignments) update `state` in place. */
export function evaluateExpression(it: Interpreter, e: ts.Expression, state: State): AbstractValue {
  it.step(e);
  if (isWholeChain(e)) return it.chains.evaluate(state, () => evaluateNode(it, e, state));
  return evaluateNode(it, e, state);
}

/** The outermost node of an optional chain (`a?.b.c` as a whole, not `a?.b`): where a `?.` skips to. */
function isWholeChain(e: ts.Expression): boolean {
  if (!ts.isOptionalChain(e)) return false;
  const parent = e.parent;
  return !(ts.isOptionalChain(parent) && parent.expression === e);
}

type ExpressionHandler<N extends ts.Expression> = (it: Interpreter, e: N, state: State) => AbstractValue;
const on = <N extends ts.Expression>(handler: ExpressionHandler<N>): ExpressionHandler<ts.Expression> =>
  handler as ExpressionHandler<ts.Expression>;
const literal = on<ts.StringLiteral | ts.NoSubstitutionTemplateLiteral>((_it, e) => constant(e.text));
const call = on<ts.CallExpression | ts.NewExpression>((it, e, state) => {
  const value = ts.isCallExpression(e) ? evaluateCall(it, e, state) : evaluateNew(it, e, state);
  it.counts.mayThrow(state); // any call may throw (a trusted call's promise may reject)
  return value;
});
const functionValue = on<ts.ArrowFunction | ts.FunctionExpression>((it, e, state) => {
  escapeFunction(it, e, state);
  return unknown("a function");
});

/**
 * How each expression kind evaluates (past the wrappers skipOuter removes); the construct check allows exactly the
 * kinds listed here.
 */
export const EXPRESSIONS: ReadonlyMap<ts.SyntaxKind, ExpressionHandler<ts.Expression>> = new Map([
  [ts.SyntaxKind.StringLiteral, literal],
  [ts.SyntaxKind.NoSubstitutionTemplateLiteral, literal],
  [ts.SyntaxKind.NumericLiteral, on<ts.NumericLiteral>((_it, e) => constant(Number(e.text)))],
  [ts.SyntaxKind.TrueKeyword, on(() => constant(true))],
  [ts.SyntaxKind.FalseKeyword, on(() => constant(false))],
  [ts.SyntaxKind.NullKeyword, on(() => constant(null))],
  [ts.SyntaxKind.Identifier, on(identifier)],
  [
    ts.SyntaxKind.TemplateExpression,
    on<ts.TemplateExpression>((it, e, state) => {
      const spans = e.templateSpans.map((span) => ({
        value: evaluateExpression(it, span.expression, state),
        text: span.literal.text,
      }));
      if (!spans.every((span) => isPrimitive(span.value))) it.counts.mayThrow(state); // an object's toString runs
      return template(e.head.text, spans);
    }),
  ],
  [
    ts.SyntaxKind.ArrayLiteralExpression,
    on<ts.ArrayLiteralExpression>((it, e, state) =>
      arrayOf(
        e.elements.map((el) =>
          ts.isSpreadElement(el)
            ? { value: spread(it, el, state), spread: true }
            : {
                value: ts.isOmittedExpression(el) ? unknown("a hole in an array") : evaluateExpression(it, el, state),
                spread: false,
              },
        ),
      ),
    ),
  ],
  [ts.SyntaxKind.ObjectLiteralExpression, on(objectLiteral)],
  [
    ts.SyntaxKind.PropertyAccessExpression,
    on<ts.PropertyAccessExpression>((it, e, state) => {
      const receiver = evaluateExpression(it, e.expression, state);
      if (e.questionDotToken === undefined) mayBeNullish(it, receiver, state);
      else it.chains.mayShortCircuit(receiver, state);
      return getProperty(receiver, e.name.text);
    }),
  ],
  [
    ts.SyntaxKind.ElementAccessExpression,
    on<ts.ElementAccessExpression>((it, e, state) => {
      const receiver = evaluateExpression(it, e.expression, state);
      if (e.questionDotToken !== undefined) it.chains.mayShortCircuit(receiver, state); // the key is not evaluated then
      const key = evaluateExpression(it, e.argumentExpression, state);
      it.numericKeys.check(e, key);
      if (e.questionDotToken === undefined) mayBeNullish(it, receiver, state);
      if (key.kind !== "const") it.influence.add(key); // which element is read depends on the key
      return getElement(receiver, key);
    }),
  ],
  [ts.SyntaxKind.CallExpression, call],
  [ts.SyntaxKind.NewExpression, call],
  [
    ts.SyntaxKind.AwaitExpression,
    on<ts.AwaitExpression>((it, e, state) => {
      const value = it.promises.awaited(evaluateExpression(it, e.expression, state));
      it.counts.mayThrow(state);
      return value;
    }),
  ],
  [ts.SyntaxKind.BinaryExpression, on(binaryExpression)],
  [ts.SyntaxKind.PrefixUnaryExpression, on(unaryExpression)],
  [ts.SyntaxKind.PostfixUnaryExpression, on(unaryExpression)],
  [
    ts.SyntaxKind.ConditionalExpression,
    on<ts.ConditionalExpression>((it, e, state) => {
      const condition = evaluateExpression(it, e.condition, state);
      const t = truthy(condition);
      if (t === "yes") return evaluateExpression(it, e.whenTrue, state);
      if (t === "no") return evaluateExpression(it, e.whenFalse, state);
      it.influence.add(condition);
      return branches(it, state, e.whenTrue, e.whenFalse);
    }),
  ],
  [ts.SyntaxKind.ArrowFunction, functionValue],
  [ts.SyntaxKind.FunctionExpression, functionValue],
  [
    ts.SyntaxKind.TypeOfExpression,
    on<ts.TypeOfExpression>((it, e, state) => {
      const operand = evaluateExpression(it, e.expression, state);
      return inspected(it, typeOf(operand), [operand]);
    }),
  ],
  [
    ts.SyntaxKind.VoidExpression,
    on<ts.VoidExpression>((it, e, state) => {
      evaluateExpression(it, e.expression, state);
      return unknown("undefined");
    }),
  ],
  [ts.SyntaxKind.RegularExpressionLiteral, on(() => unknown("a regular expression"))],
]);

function evaluateNode(it: Interpreter, e: ts.Expression, state: State): AbstractValue {
  const inner = skipOuter(e);
  if (inner !== e) return evaluateExpression(it, inner, state);
  const handler = EXPRESSIONS.get(e.kind);
  if (handler !== undefined) return handler(it, e, state);
  it.unsupported(e, ts.SyntaxKind[e.kind]);
  return unknown("an unsupported expression");
}

/**
 * A result computed from `inputs` that keeps none of their sources (a comparison, `typeof`, a
 * test): it is one of the program's own values chosen by the inputs, so they influence control.
 */
export function inspected(it: Interpreter, result: AbstractValue, inputs: AbstractValue[]): AbstractValue {
  if (result.kind === "const") for (const input of inputs) it.influence.add(input);
  return result;
}

/** Values that convert to strings and numbers without running any of the program's code. */
export function isPrimitive(v: AbstractValue): boolean {
  return v.kind === "const" && v.values.every((x) => x === null || typeof x !== "object");
}

/** A member read or write on a value that may be null or undefined throws a TypeError. */
export function mayBeNullish(it: Interpreter, receiver: AbstractValue, state: State): void {
  if (nullish(receiver) !== "no") it.counts.mayThrow(state);
}

/** `...x` in an array or call: the array, or a string's code points; throws unless x is iterable. */
export function spread(it: Interpreter, el: ts.SpreadElement, state: State): AbstractValue {
  const value = evaluateExpression(it, el.expression, state);
  const items = iterated(value);
  if (items === undefined) it.counts.mayThrow(state);
  return items ?? value;
}

function identifier(it: Interpreter, id: ts.Identifier, state: State): AbstractValue {
  if (id.text === "undefined") return unknown("undefined");
  const symbol = valueSymbol(it.checker, id);
  if (symbol === undefined) return unknown(id.text);
  const fn = localFunction(it, symbol);
  if (fn !== undefined) {
    escapeFunction(it, fn, state); // a function used as a value may be called anywhere, any number of times
    return unknown("a function");
  }
  const declaration = symbol.valueDeclaration;
  if (declaration !== undefined && it.isLibDeclaration(declaration)) return unknown(id.text);
  return it.vars.read(state, symbol);
}

/** Evaluate two alternatives from the same state and join both the values and the states. */
function branches(it: Interpreter, state: State, a: ts.Expression, b: ts.Expression): AbstractValue {
  const other = clone(state);
  const va = evaluateExpression(it, a, state);
  const vb = evaluateExpression(it, b, other);
  assign(state, joinStates(state, other)!);
  return join(va, vb);
}

function objectLiteral(it: Interpreter, e: ts.ObjectLiteralExpression, state: State): AbstractValue {
  const fields: Record<string, AbstractValue> = {};
  let opaque: AbstractValue | undefined;
  for (const property of e.properties) {
    if (ts.isSpreadAssignment(property)) {
      const spread = evaluateExpression(it, property.expression, state);
      const record = asRecord(spread);
      if (record === undefined)
        opaque = derived([spread, ...(opaque === undefined ? [] : [opaque])], "a spread object");
      else Object.assign(fields, record);
      continue;
    }
    const key = propertyKey(property.name);
    if (key === undefined) {
      it.unsupported(property, "this property name");
      continue;
    }
    if (ts.isPropertyAssignment(property)) fields[key] = evaluateExpression(it, property.initializer, state);
    else if (ts.isShorthandPropertyAssignment(property)) fields[key] = identifier(it, property.name, state);
    else {
      if (ts.isMethodDeclaration(property)) escapeFunction(it, property, state);
      else it.unsupported(property, ts.SyntaxKind[property.kind]);
      fields[key] = unknown("a function");
    }
  }
  if (opaque !== undefined) return derived([opaque, ...Object.values(fields)], "an object with a spread");
  return fold({ kind: "record", fields });
}

export function propertyKey(name: ts.PropertyName): string | undefined {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNoSubstitutionTemplateLiteral(name)) return name.text;
  if (ts.isNumericLiteral(name)) return String(Number(name.text));
  if (
    ts.isComputedPropertyName(name) &&
    (ts.isStringLiteral(name.expression) || ts.isNumericLiteral(name.expression))
  ) {
    return ts.isNumericLiteral(name.expression) ? String(Number(name.expression.text)) : name.expression.text;
  }
  return undefined;
}

const compound: Partial<Record<ts.SyntaxKind, string>> = {
  [ts.SyntaxKind.PlusEqualsToken]: "+",
  [ts.SyntaxKind.MinusEqualsToken]: "-",
  [ts.SyntaxKind.AsteriskEqualsToken]: "*",
  [ts.SyntaxKind.SlashEqualsToken]: "/",
  [ts.SyntaxKind.PercentEqualsToken]: "%",
  [ts.SyntaxKind.AsteriskAsteriskEqualsToken]: "**",
  [ts.SyntaxKind.AmpersandEqualsToken]: "&",
  [ts.SyntaxKind.BarEqualsToken]: "|",
  [ts.SyntaxKind.CaretEqualsToken]: "^",
  [ts.SyntaxKind.LessThanLessThanEqualsToken]: "<<",
  [ts.SyntaxKind.GreaterThanGreaterThanEqualsToken]: ">>",
  [ts.SyntaxKind.GreaterThanGreaterThanGreaterThanEqualsToken]: ">>>",
};

function binaryExpression(it: Interpreter, e: ts.BinaryExpression, state: State): AbstractValue {
  const op = e.operatorToken.kind;
  if (op === ts.SyntaxKind.EqualsToken)
    return assignTo(it, e.left, state, () => evaluateExpression(it, e.right, state));
  const arithmetic = compound[op];
  if (arithmetic !== undefined)
    return assignTo(it, e.left, state, (old) =>
      arithmeticOf(it, arithmetic, old(), evaluateExpression(it, e.right, state), state),
    );
  if (
    op === ts.SyntaxKind.AmpersandAmpersandEqualsToken ||
    op === ts.SyntaxKind.BarBarEqualsToken ||
    op === ts.SyntaxKind.QuestionQuestionEqualsToken
  ) {
    return assignTo(it, e.left, state, (old) => shortCircuit(it, op, old(), e.right, state));
  }
  if (op === ts.SyntaxKind.CommaToken) {
    evaluateExpression(it, e.left, state);
    return evaluateExpression(it, e.right, state);
  }
  if (
    op === ts.SyntaxKind.AmpersandAmpersandToken ||
    op === ts.SyntaxKind.BarBarToken ||
    op === ts.SyntaxKind.QuestionQuestionToken
  ) {
    return shortCircuit(it, op, evaluateExpression(it, e.left, state), e.right, state);
  }
  const left = evaluateExpression(it, e.left, state);
  const right = evaluateExpression(it, e.right, state);
  // Non-primitive operands run valueOf/toString (or the string grows too long); `in` and `instanceof` throw on
  // primitives.
  const strict = op === ts.SyntaxKind.EqualsEqualsEqualsToken || op === ts.SyntaxKind.ExclamationEqualsEqualsToken;
  const relation = op === ts.SyntaxKind.InKeyword || op === ts.SyntaxKind.InstanceOfKeyword;
  if (relation || (!strict && !(isPrimitive(left) && isPrimitive(right)))) it.counts.mayThrow(state);
  return inspected(it, relation ? fromTruth("maybe") : binary(ts.tokenToString(op) ?? "?", left, right), [left, right]);
}

/** `left && right`, `left || right`, `left ?? right` (and their assignment forms): `right` runs only when it must. */
function shortCircuit(
  it: Interpreter,
  op: ts.SyntaxKind,
  left: AbstractValue,
  right: ts.Expression,
  state: State,
): AbstractValue {
  const nullishOp = op === ts.SyntaxKind.QuestionQuestionToken || op === ts.SyntaxKind.QuestionQuestionEqualsToken;
  const orOp = op === ts.SyntaxKind.BarBarToken || op === ts.SyntaxKind.BarBarEqualsToken;
  const t = nullishOp ? nullish(left) : truthy(left);
  const takesLeft = orOp ? "yes" : "no";
  if (t === takesLeft) return left;
  if (t !== "maybe") return evaluateExpression(it, right, state);
  it.influence.add(left);
  const other = clone(state);
  const value = evaluateExpression(it, right, other);
  assign(state, joinStates(state, other)!);
  return join(left, value);
}

function unaryExpression(
  it: Interpreter,
  e: ts.PrefixUnaryExpression | ts.PostfixUnaryExpression,
  state: State,
): AbstractValue {
  if (e.operator === ts.SyntaxKind.PlusPlusToken || e.operator === ts.SyntaxKind.MinusMinusToken) {
    let number: AbstractValue = unknown("undefined");
    const next = assignTo(it, e.operand, state, (old) => {
      const previous = old();
      if (!isPrimitive(previous)) it.counts.mayThrow(state);
      number = unary("+", previous);
      return binary(e.operator === ts.SyntaxKind.PlusPlusToken ? "+" : "-", number, constant(1));
    });
    return ts.isPrefixUnaryExpression(e) ? next : number;
  }
  const operand = evaluateExpression(it, e.operand, state);
  if (e.operator !== ts.SyntaxKind.ExclamationToken && !isPrimitive(operand)) it.counts.mayThrow(state);
  return inspected(it, unary(ts.tokenToString(e.operator) ?? "?", operand), [operand]);
}

/** `a op b` for a compound assignment or ++/--, which may run valueOf/toString on objects. */
function arithmeticOf(it: Interpreter, op: string, a: AbstractValue, b: AbstractValue, state: State): AbstractValue {
  if (!(isPrimitive(a) && isPrimitive(b))) it.counts.mayThrow(state);
  return binary(op, a, b);
}

/**
 * An assignment to `target` of what `compute` gives (it may read the old value once). As in
 * JavaScript, the target's object and key are evaluated first, once, then the value, then the write.
 */
function assignTo(
  it: Interpreter,
  target: ts.Expression,
  state: State,
  compute: (old: () => AbstractValue) => AbstractValue,
): AbstractValue {
  const t = skipOuter(target);
  if (ts.isIdentifier(t)) {
    const value = compute(() => evaluateExpression(it, t, state));
    const symbol = it.checker.getSymbolAtLocation(t);
    if (symbol !== undefined) it.vars.set(state, symbol, value);
    return value;
  }
  if (ts.isPropertyAccessExpression(t) || ts.isElementAccessExpression(t)) {
    const object = t.expression;
    const receiver = evaluateExpression(it, object, state);
    const key = ts.isPropertyAccessExpression(t)
      ? constant(t.name.text)
      : evaluateExpression(it, t.argumentExpression, state);
    it.numericKeys.check(t, key);
    if (key.kind !== "const") it.influence.add(key); // which element is written depends on the key
    mayBeNullish(it, receiver, state);
    if (key.kind === "const" && key.values.some((k) => typeof k === "string" && FROZEN_MEMBERS.has(k)))
      it.counts.mayThrow(state); // may shadow a frozen built-in
    const value = compute(() => getElement(receiver, key));
    mutateTracked(it, object, state, (v) => setField(v, key, value), [key, value]);
    return value;
  }
  it.unsupported(target, "this assignment target");
  return unknown("an unsupported assignment");
}

/** An object after `o[key] = value`. */
function setField(o: AbstractValue, key: AbstractValue, value: AbstractValue): AbstractValue {
  const k = key.kind === "const" && key.values.length === 1 ? key.values[0] : undefined;
  const record = asRecord(o);
  if (typeof k === "string" && record !== undefined) return fold({ kind: "record", fields: { ...record, [k]: value } });
  if (
    o.kind === "const" &&
    o.values.length === 1 &&
    Array.isArray(o.values[0]) &&
    typeof k === "number" &&
    value.kind === "const" &&
    value.values.length === 1
  ) {
    const copy: Json[] = [...(o.values[0] as Json[])];
    if (Number.isInteger(k) && k >= 0 && k <= copy.length) {
      copy[k] = value.values[0]!;
      return constant(copy);
    }
  }
  return derived([o, key, value], "an object changed in place"); // the key is data too: Object.keys shows it
}
