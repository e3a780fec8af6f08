import { ts } from "./typescript.js";

/** Kinds that wrap an expression without changing its value: parentheses, `as`, `<T>`, `satisfies` and `!`. */
export const OUTER_KINDS: ReadonlySet<ts.SyntaxKind> = new Set([
  ts.SyntaxKind.ParenthesizedExpression,
  ts.SyntaxKind.AsExpression,
  ts.SyntaxKind.TypeAssertionExpression,
  ts.SyntaxKind.SatisfiesExpression,
  ts.SyntaxKind.NonNullExpression,
]);

type Outer =
  | ts.ParenthesizedExpression
  | ts.AsExpression
  | ts.TypeAssertion
  | ts.SatisfiesExpression
  | ts.NonNullExpression;

/** `e` without the wrappers of OUTER_KINDS. */
export function skipOuter(e: ts.Expression): ts.Expression {
  while (OUTER_KINDS.has(e.kind)) e = (e as Outer).expression;
  return e;
}
