import { ts } from "../compile/typescript.js";
import type { AbstractValue } from "../../model/index.js";
import { evaluateExpression } from "./expressions.js";
import type { Interpreter } from "./interpreter.js";
import { asArray, constant, derived, join, singleArray } from "../domain/lattice.js";
import { assign, clone, joinStates, type State } from "./state.js";
import { getProperty, iterated } from "../domain/values.js";

/** Bind a declared name or destructuring pattern to `value`. */
export function bindName(it: Interpreter, name: ts.BindingName, value: AbstractValue, state: State): void {
  if (ts.isIdentifier(name)) {
    const symbol = it.checker.getSymbolAtLocation(name);
    if (symbol !== undefined) it.vars.set(state, symbol, value);
    return;
  }
  // Destructuring null or undefined, or an array pattern over something that is not iterable, throws.
  // An array pattern iterates: a string gives its code points.
  const items = ts.isArrayBindingPattern(name) ? iterated(value) : undefined;
  if (
    ts.isArrayBindingPattern(name)
      ? items === undefined
      : value.kind !== "record" && !(value.kind === "const" && value.values.every((v) => v !== null))
  )
    it.counts.mayThrow(state);
  const source = items ?? value;
  name.elements.forEach((element, index) => {
    if (ts.isOmittedExpression(element)) return;
    let part: AbstractValue;
    if (element.dotDotDotToken !== undefined) part = rest(source, name, index);
    else if (ts.isObjectBindingPattern(name)) {
      const key = element.propertyName ?? element.name;
      part =
        ts.isIdentifier(key) || ts.isStringLiteral(key)
          ? getProperty(source, key.text)
          : derived([source], "a computed property");
    } else part = getProperty(source, String(index));
    bindName(it, element.name, withDefault(it, part, element.initializer, state), state);
  });
}

/**
 * A value, or the default when it may be undefined. The default runs only then, so its effects
 * are evaluated on a branch of their own and joined with the state where it does not run.
 */
export function withDefault(
  it: Interpreter,
  value: AbstractValue,
  initializer: ts.Expression | undefined,
  state: State,
): AbstractValue {
  if (initializer === undefined || value.kind !== "unknown") return value;
  it.influence.add(value); // whether the default runs depends on the value
  const other = clone(state);
  const fallback = evaluateExpression(it, initializer, other);
  assign(state, joinStates(state, other)!);
  return join(value, fallback);
}

function rest(value: AbstractValue, pattern: ts.BindingPattern, index: number): AbstractValue {
  if (ts.isArrayBindingPattern(pattern)) {
    const only = singleArray(value);
    if (only !== undefined) return constant(only.slice(index));
    const view = asArray(value);
    if (view !== undefined) return { kind: "array", element: view.element, length: { min: 0, max: view.length.max } };
  }
  return derived([value], "the rest of a destructured value");
}
