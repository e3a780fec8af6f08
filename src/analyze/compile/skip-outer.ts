import { ts } from "./typescript.js";

/** `e` without what does not change its value: parentheses, `as`, `<T>`, `satisfies` and `!`. */
export function skipOuter(e: ts.Expression): ts.Expression {
  while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isTypeAssertionExpression(e) || ts.isSatisfiesExpression(e) || ts.isNonNullExpression(e)) e = e.expression;
  return e;
}
