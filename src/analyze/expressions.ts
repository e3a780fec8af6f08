import { ts } from "./typescript.js";
import type { AbstractValue } from "../model/abstract.js";
import type { Json } from "../model/json.js";
import { evaluateCall, evaluateNew, escapeFunction, localFunction } from "./calls.js";
import type { Interpreter } from "./interpreter.js";
import { asRecord, constant, derived, fold, join, unknown } from "./lattice.js";
import { binary, fromTruth, template, truthy, typeOf, unary } from "./operators.js";
import { valueSymbol } from "./scan.js";
import { assign, clone, joinStates, type State } from "./state.js";
import { arrayOf, getElement, getProperty } from "./values.js";
import { mutateTracked } from "./mutate.js";

/** The abstract value of `e`; effects (calls, assignments) update `state` in place. */
export function evaluate(it: Interpreter, e: ts.Expression, state: State): AbstractValue {
  if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isSatisfiesExpression(e) || ts.isNonNullExpression(e) || ts.isTypeAssertionExpression(e)) {
    return evaluate(it, e.expression, state);
  }
  if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e)) return constant(e.text);
  if (ts.isNumericLiteral(e)) return constant(Number(e.text));
  switch (e.kind) {
    case ts.SyntaxKind.TrueKeyword:
      return constant(true);
    case ts.SyntaxKind.FalseKeyword:
      return constant(false);
    case ts.SyntaxKind.NullKeyword:
      return constant(null);
  }
  if (ts.isIdentifier(e)) return identifier(it, e, state);
  if (ts.isTemplateExpression(e)) {
    const spans = e.templateSpans.map((span) => ({ value: evaluate(it, span.expression, state), text: span.literal.text }));
    return template(e.head.text, spans);
  }
  if (ts.isArrayLiteralExpression(e)) {
    return arrayOf(e.elements.map((el) => (ts.isSpreadElement(el) ? { value: evaluate(it, el.expression, state), spread: true } : { value: ts.isOmittedExpression(el) ? unknown("a hole in an array") : evaluate(it, el, state), spread: false })));
  }
  if (ts.isObjectLiteralExpression(e)) return objectLiteral(it, e, state);
  if (ts.isPropertyAccessExpression(e)) {
    const receiver = evaluate(it, e.expression, state);
    return maybeNullish(e, receiver, getProperty(receiver, e.name.text));
  }
  if (ts.isElementAccessExpression(e)) {
    const receiver = evaluate(it, e.expression, state);
    return maybeNullish(e, receiver, getElement(receiver, evaluate(it, e.argumentExpression, state)));
  }
  if (ts.isCallExpression(e)) return evaluateCall(it, e, state);
  if (ts.isNewExpression(e)) return evaluateNew(it, e, state);
  if (ts.isAwaitExpression(e)) return it.awaited(evaluate(it, e.expression, state));
  if (ts.isBinaryExpression(e)) return binaryExpression(it, e, state);
  if (ts.isPrefixUnaryExpression(e) || ts.isPostfixUnaryExpression(e)) return unaryExpression(it, e, state);
  if (ts.isConditionalExpression(e)) {
    const t = truthy(evaluate(it, e.condition, state));
    if (t === "yes") return evaluate(it, e.whenTrue, state);
    if (t === "no") return evaluate(it, e.whenFalse, state);
    return branches(it, state, e.whenTrue, e.whenFalse);
  }
  if (ts.isArrowFunction(e) || ts.isFunctionExpression(e)) {
    escapeFunction(it, e, state);
    return unknown("a function");
  }
  if (ts.isTypeOfExpression(e)) return typeOf(evaluate(it, e.expression, state));
  if (ts.isVoidExpression(e)) {
    evaluate(it, e.expression, state);
    return unknown("undefined");
  }
  if (ts.isRegularExpressionLiteral(e)) return unknown("a regular expression");
  it.unsupported(e, ts.SyntaxKind[e.kind]);
  return unknown("an unsupported expression");
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
  return it.read(state, symbol);
}

/** `a?.b`: undefined too when `a` may be null or undefined. */
function maybeNullish(e: ts.PropertyAccessExpression | ts.ElementAccessExpression, receiver: AbstractValue, value: AbstractValue): AbstractValue {
  if (e.questionDotToken === undefined || truthy(receiver) === "yes") return value;
  return join(value, unknown("undefined"));
}

/** Evaluate two alternatives from the same state and join both the values and the states. */
function branches(it: Interpreter, state: State, a: ts.Expression, b: ts.Expression): AbstractValue {
  const other = clone(state);
  const va = evaluate(it, a, state);
  const vb = evaluate(it, b, other);
  assign(state, joinStates(state, other)!);
  return join(va, vb);
}

function objectLiteral(it: Interpreter, e: ts.ObjectLiteralExpression, state: State): AbstractValue {
  const fields: Record<string, AbstractValue> = {};
  let opaque: AbstractValue | undefined;
  for (const property of e.properties) {
    if (ts.isSpreadAssignment(property)) {
      const spread = evaluate(it, property.expression, state);
      const record = asRecord(spread);
      if (record === undefined) opaque = derived([spread, ...(opaque === undefined ? [] : [opaque])], "a spread object");
      else Object.assign(fields, record);
      continue;
    }
    const key = propertyKey(property.name);
    if (key === undefined) {
      it.unsupported(property, "this property name");
      continue;
    }
    if (ts.isPropertyAssignment(property)) fields[key] = evaluate(it, property.initializer, state);
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
  if (ts.isComputedPropertyName(name) && (ts.isStringLiteral(name.expression) || ts.isNumericLiteral(name.expression))) {
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
  if (op === ts.SyntaxKind.EqualsToken) {
    const value = evaluate(it, e.right, state);
    write(it, e.left, value, state);
    return value;
  }
  const arithmetic = compound[op];
  if (arithmetic !== undefined) {
    const value = binary(arithmetic, evaluate(it, e.left, state), evaluate(it, e.right, state));
    write(it, e.left, value, state);
    return value;
  }
  if (op === ts.SyntaxKind.AmpersandAmpersandEqualsToken || op === ts.SyntaxKind.BarBarEqualsToken || op === ts.SyntaxKind.QuestionQuestionEqualsToken) {
    const value = join(evaluate(it, e.left, state), evaluate(it, e.right, state));
    write(it, e.left, value, state);
    return value;
  }
  if (op === ts.SyntaxKind.CommaToken) {
    evaluate(it, e.left, state);
    return evaluate(it, e.right, state);
  }
  if (op === ts.SyntaxKind.AmpersandAmpersandToken || op === ts.SyntaxKind.BarBarToken || op === ts.SyntaxKind.QuestionQuestionToken) {
    const left = evaluate(it, e.left, state);
    const t = op === ts.SyntaxKind.QuestionQuestionToken ? nullish(left) : truthy(left);
    const takesLeft = op === ts.SyntaxKind.AmpersandAmpersandToken ? "no" : op === ts.SyntaxKind.BarBarToken ? "yes" : "no";
    if (t === takesLeft) return left;
    if (t !== "maybe") return evaluate(it, e.right, state);
    const other = clone(state);
    const right = evaluate(it, e.right, other);
    assign(state, joinStates(state, other)!);
    return join(left, right);
  }
  const left = evaluate(it, e.left, state);
  const right = evaluate(it, e.right, state);
  if (op === ts.SyntaxKind.InKeyword || op === ts.SyntaxKind.InstanceOfKeyword) return fromTruth("maybe");
  return binary(ts.tokenToString(op) ?? "?", left, right);
}

/** Whether `v` is null or undefined, for `??`. */
function nullish(v: AbstractValue): "yes" | "no" | "maybe" {
  if (v.kind === "const") return v.values.every((x) => x === null) ? "yes" : v.values.some((x) => x === null) ? "maybe" : "no";
  return v.kind === "unknown" ? "maybe" : "no";
}

function unaryExpression(it: Interpreter, e: ts.PrefixUnaryExpression | ts.PostfixUnaryExpression, state: State): AbstractValue {
  const old = evaluate(it, e.operand, state);
  if (e.operator === ts.SyntaxKind.PlusPlusToken || e.operator === ts.SyntaxKind.MinusMinusToken) {
    const number = unary("+", old);
    const next = binary(e.operator === ts.SyntaxKind.PlusPlusToken ? "+" : "-", number, constant(1));
    write(it, e.operand, next, state);
    return ts.isPrefixUnaryExpression(e) ? next : number;
  }
  return unary(ts.tokenToString(e.operator) ?? "?", old);
}

/** Store `value` into an assignment target: a variable, or a field of a tracked object. */
function write(it: Interpreter, target: ts.Expression, value: AbstractValue, state: State): void {
  let t = target;
  while (ts.isParenthesizedExpression(t) || ts.isNonNullExpression(t) || ts.isAsExpression(t) || ts.isSatisfiesExpression(t)) t = t.expression;
  if (ts.isIdentifier(t)) {
    const symbol = it.checker.getSymbolAtLocation(t);
    if (symbol !== undefined) it.setVar(state, symbol, value);
    return;
  }
  if (ts.isPropertyAccessExpression(t)) return mutateTracked(it, t.expression, state, (v) => setField(v, constant(t.name.text), value));
  if (ts.isElementAccessExpression(t)) {
    const key = evaluate(it, t.argumentExpression, state);
    return mutateTracked(it, t.expression, state, (v) => setField(v, key, value));
  }
  it.unsupported(target, "this assignment target");
}

/** An object after `o[key] = value`. */
function setField(o: AbstractValue, key: AbstractValue, value: AbstractValue): AbstractValue {
  const k = key.kind === "const" && key.values.length === 1 ? key.values[0] : undefined;
  const record = asRecord(o);
  if (typeof k === "string" && record !== undefined) return fold({ kind: "record", fields: { ...record, [k]: value } });
  if (o.kind === "const" && o.values.length === 1 && Array.isArray(o.values[0]) && typeof k === "number" && value.kind === "const" && value.values.length === 1) {
    const copy: Json[] = [...(o.values[0] as Json[])];
    if (Number.isInteger(k) && k >= 0 && k <= copy.length) {
      copy[k] = value.values[0]!;
      return constant(copy);
    }
  }
  return derived([o, value], "an object changed in place");
}
