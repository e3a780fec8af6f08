import { ts } from "../compile/typescript.js";
import type { Diagnostic } from "../../model/index.js";
import { libTypeNames } from "../../environment/index.js";
import { diagnosticAt } from "../diagnostic.js";
import { valueSymbol } from "../compile/scan.js";
import { apiModuleOf } from "../compile/trusted-callee.js";

// Comment directives that silence the type checker; TypeScript honours them in line, block and JSDoc comments.
const DIRECTIVE = /@ts-(ignore|nocheck|expect-error)/i;
const CLAIMS_ANYTHING = new Set([ts.SyntaxKind.UnknownKeyword, ts.SyntaxKind.AnyKeyword, ts.SyntaxKind.NeverKeyword]);

/**
 * Types are never trusted: the program cannot assert what the analysis relies on. Refused here:
 * comments that silence the checker; double casts through `unknown`, `any` or `never` (and casts
 * to `never`, which claim every type at once); casts of globals, built-ins and trusted functions;
 * types taken from a trusted function or contract helper (`const f: typeof sendEmail = ...` would
 * make the checker resolve a call of `f` to the trusted declaration); overload signatures (calls
 * would resolve to a declaration without a body); types named like the environment's (which a
 * script could merge into); and writes to members of the environment's globals.
 */
export function checkTypeTrust(checker: ts.TypeChecker, file: ts.SourceFile, libFile: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const refuse = (node: ts.Node, construct: string, why: string): void => {
    out.push(diagnosticAt(file, node, "refused_construct", `${construct} is refused: it ${why}`, construct));
  };
  const isLib = (id: ts.Identifier): boolean =>
    valueSymbol(checker, id)?.declarations?.some((d) => d.getSourceFile().fileName === libFile) === true;
  const builtInTypes = libTypeNames();

  const visit = (node: ts.Node): void => {
    if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) checkAssertion(node);
    else if (ts.isTypeQueryNode(node)) {
      const root = leftmost(node.exprName);
      if (ts.isIdentifier(root) && apiModuleOf(checker, root) !== undefined)
        refuse(
          node,
          `the type of ${root.text}`,
          "would let a value pass for a trusted function or contract helper; write the type out",
        );
    } else if (ts.isFunctionDeclaration(node) && node.body === undefined) {
      refuse(node, "function overload", "lets calls resolve to a signature with no body; write one function");
    } else if (
      (ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) &&
      builtInTypes.has(node.name.text)
    ) {
      refuse(node.name, `a type named ${node.name.text}`, "takes the name of a built-in type; choose another name");
    } else if (isWrite(node)) {
      const root = leftmost(node);
      if (ts.isIdentifier(root) && isLib(root))
        refuse(node, `a write to ${root.text}`, "changes a built-in the analysis relies on");
    }
    ts.forEachChild(node, visit);
  };

  const checkAssertion = (node: ts.AsExpression | ts.TypeAssertion): void => {
    const inner = skipParens(node.expression);
    if (node.type.kind === ts.SyntaxKind.NeverKeyword)
      return refuse(node, "a cast to never", "claims every type at once");
    if ((ts.isAsExpression(inner) || ts.isTypeAssertionExpression(inner)) && CLAIMS_ANYTHING.has(inner.type.kind)) {
      return refuse(
        node,
        "a double cast",
        `goes through ${ts.tokenToString(inner.type.kind) ?? "unknown"}, so it can claim any type`,
      );
    }
    const root = leftmost(inner);
    if (ts.isIdentifier(root) && (isLib(root) || apiModuleOf(checker, root) !== undefined))
      refuse(node, `a cast of ${root.text}`, "gives a global, built-in or trusted function another type");
  };

  for (const at of directives(file)) {
    const { line, character } = file.getLineAndCharacterOfPosition(at);
    out.push({
      severity: "error",
      code: "refused_construct",
      message: "a @ts- directive comment is refused: it silences the type checker",
      line: line + 1,
      column: character + 1,
      construct: "@ts- directive",
    });
  }
  visit(file);
  return out;
}

function skipParens(e: ts.Expression): ts.Expression {
  while (ts.isParenthesizedExpression(e)) e = e.expression;
  return e;
}

/** The identifier at the root of `a.b[c]!.d` (or of a qualified name `a.b`). */
function leftmost(node: ts.Node): ts.Node {
  let e = node;
  for (;;) {
    if (
      ts.isParenthesizedExpression(e) ||
      ts.isNonNullExpression(e) ||
      ts.isPropertyAccessExpression(e) ||
      ts.isElementAccessExpression(e)
    )
      e = e.expression;
    else if (ts.isQualifiedName(e)) e = e.left;
    else return e;
  }
}

/** The target of an assignment, compound assignment, ++ or --. */
function isWrite(node: ts.Node): node is ts.Expression {
  const parent = node.parent;
  if (parent === undefined) return false;
  if (ts.isBinaryExpression(parent) && parent.left === node)
    return (
      parent.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
      parent.operatorToken.kind <= ts.SyntaxKind.LastAssignment
    );
  return (
    (ts.isPrefixUnaryExpression(parent) || ts.isPostfixUnaryExpression(parent)) &&
    (parent.operator === ts.SyntaxKind.PlusPlusToken || parent.operator === ts.SyntaxKind.MinusMinusToken)
  );
}

/**
 * The position of every @ts- directive in a comment. Every comment is in the trivia before some
 * token, so the comments before each token of the syntax tree are all the comments there are.
 */
function directives(file: ts.SourceFile): number[] {
  const text = file.text;
  // a comment is part of the text: without the words anywhere, no comment holds them
  if (!DIRECTIVE.test(text)) return [];
  const found = new Set<number>();
  const seen = new Set<number>();
  const visit = (node: ts.Node): void => {
    if (node.kind <= ts.SyntaxKind.LastToken || node.kind === ts.SyntaxKind.EndOfFileToken) {
      if (seen.has(node.pos)) return;
      seen.add(node.pos);
      // The trivia before a token: the comments on the previous token's line ("trailing"), then the rest.
      for (const range of [
        ...(ts.getTrailingCommentRanges(text, node.pos) ?? []),
        ...(ts.getLeadingCommentRanges(text, node.pos) ?? []),
      ]) {
        const match = DIRECTIVE.exec(text.slice(range.pos, range.end));
        if (match !== null) found.add(range.pos + match.index);
      }
      return;
    }
    for (const child of node.getChildren(file)) visit(child);
  };
  visit(file);
  return [...found].sort((a, b) => a - b);
}
