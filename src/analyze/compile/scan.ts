import { ts } from "./typescript.js";
import { mutatingMembers } from "../../environment/index.js";
import { skipOuter } from "./skip-outer.js";

/**
 * A pass over the whole program before interpretation, finding the variables whose values the
 * interpreter must not trust to its environment:
 * - volatile: written (assigned or mutated) inside a function other than the one declaring them,
 *   e.g. by a callback that may run at any time: every read is unknown;
 * - mutable: written anywhere after their declaration; callbacks and detached async calls read
 *   them as unknown, because they may run after a later write;
 * - tracked: objects mutated in place (`lines.push(x)`, `o.f = x`) that are declared with a fresh
 *   literal, never reassigned and never aliased, so the interpreter can follow each mutation;
 * - heapOpaque: some object is mutated through a path we cannot follow (a parameter, a nested
 *   field, an alias): then no object value read from a variable is trusted.
 */
export interface Scan {
  volatile: Set<ts.Symbol>;
  mutable: Set<ts.Symbol>;
  tracked: Set<ts.Symbol>;
  heapOpaque: boolean;
  /** The variables written inside `node` (a loop or a try block). */
  writtenWithin(node: ts.Node): Set<ts.Symbol>;
  /** The variables whose object is changed in place inside `node` (`xs.push(x)`, `xs[0] = x`). */
  mutatedWithin(node: ts.Node): Set<ts.Symbol>;
}

/** Array methods that change the array they are called on (`mutates` in the environment). */
export const MUTATORS = mutatingMembers("Array");
/** Map and Set methods that change their receiver: a call of one on anything counts as a change in place. */
export const COLLECTION_MUTATORS: ReadonlySet<string> = new Set([...mutatingMembers("Map"), ...mutatingMembers("Set")]);

export function isFunctionLike(node: ts.Node): node is ts.FunctionLikeDeclaration {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node)
  );
}

export function enclosingFunction(node: ts.Node): ts.Node {
  let current = node.parent;
  while (current !== undefined && !isFunctionLike(current) && !ts.isSourceFile(current)) current = current.parent;
  return current ?? node.getSourceFile();
}

/** The symbol an identifier reads, looking through `{ name }` shorthand properties to the variable. */
export function valueSymbol(checker: ts.TypeChecker, id: ts.Identifier): ts.Symbol | undefined {
  if (ts.isShorthandPropertyAssignment(id.parent) && id.parent.name === id)
    return checker.getShorthandAssignmentValueSymbol(id.parent);
  return checker.getSymbolAtLocation(id);
}

/** The identifier at the root of `a.b[c].d` and how many member accesses lead to it from `target`. */
function rootOf(target: ts.Expression): { root: ts.Expression; depth: number } {
  let e = skipOuter(target);
  let depth = 0;
  while (ts.isPropertyAccessExpression(e) || ts.isElementAccessExpression(e)) {
    e = skipOuter(e.expression);
    depth++;
  }
  return { root: e, depth };
}

export function scanProgram(
  checker: ts.TypeChecker,
  file: ts.SourceFile,
  isTrustedCall: (call: ts.CallExpression) => boolean,
): Scan {
  const writes: { symbol: ts.Symbol; node: ts.Node; inPlace: boolean }[] = [];
  const reassigned = new Set<ts.Symbol>();
  const mutated = new Set<ts.Symbol>();
  const references = new Map<ts.Symbol, ts.Identifier[]>();
  const volatile = new Set<ts.Symbol>();
  let heapOpaque = false;

  const declaringFunction = (symbol: ts.Symbol): ts.Node | undefined => {
    const declaration = symbol.valueDeclaration;
    return declaration === undefined ? undefined : enclosingFunction(declaration);
  };
  const noteWrite = (symbol: ts.Symbol, node: ts.Node, inPlace: boolean): void => {
    writes.push({ symbol, node, inPlace });
    if (declaringFunction(symbol) !== enclosingFunction(node)) volatile.add(symbol);
  };
  // An object mutated at `node` through `target` (the object itself is `target`, i.e. depth 0).
  const noteMutation = (target: ts.Expression, node: ts.Node): void => {
    const { root, depth } = rootOf(target);
    const symbol = ts.isIdentifier(root) ? checker.getSymbolAtLocation(root) : undefined;
    if (symbol === undefined || depth > 0) heapOpaque = true;
    if (symbol === undefined) return;
    mutated.add(symbol);
    noteWrite(symbol, node, true);
  };
  const noteTarget = (target: ts.Expression, node: ts.Node): void => {
    const e = skipOuter(target);
    if (ts.isIdentifier(e)) {
      const symbol = checker.getSymbolAtLocation(e);
      if (symbol === undefined) return;
      reassigned.add(symbol);
      noteWrite(symbol, node, false);
    } else if (ts.isPropertyAccessExpression(e) || ts.isElementAccessExpression(e)) {
      noteMutation(e.expression, node);
    } else {
      heapOpaque = true; // destructuring assignment: refused by the allowlist, but never trusted here
    }
  };

  const visit = (node: ts.Node): void => {
    if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
      node.operatorToken.kind <= ts.SyntaxKind.LastAssignment
    ) {
      noteTarget(node.left, node);
    } else if (
      (ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) &&
      (node.operator === ts.SyntaxKind.PlusPlusToken || node.operator === ts.SyntaxKind.MinusMinusToken)
    ) {
      noteTarget(node.operand, node);
    } else if (ts.isCallExpression(node)) {
      const callee = skipOuter(node.expression);
      if (
        (ts.isPropertyAccessExpression(callee) &&
          (MUTATORS.has(callee.name.text) || COLLECTION_MUTATORS.has(callee.name.text))) ||
        ts.isElementAccessExpression(callee)
      )
        noteMutation(callee.expression, node);
    } else if (ts.isIdentifier(node)) {
      const symbol = valueSymbol(checker, node);
      if (symbol !== undefined) {
        const refs = references.get(symbol);
        if (refs === undefined) references.set(symbol, [node]);
        else refs.push(node); // not a copy per reference: a name used n times would cost n² here
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);

  const tracked = new Set<ts.Symbol>();
  for (const symbol of mutated) {
    const declaration = symbol.valueDeclaration;
    const fresh =
      declaration !== undefined &&
      ts.isVariableDeclaration(declaration) &&
      ts.isIdentifier(declaration.name) &&
      declaration.initializer !== undefined &&
      (ts.isArrayLiteralExpression(skipOuter(declaration.initializer)) ||
        ts.isObjectLiteralExpression(skipOuter(declaration.initializer)) ||
        isNewCollection(checker, file, skipOuter(declaration.initializer)));
    const refs = references.get(symbol) ?? [];
    // Returning the object hands it over for good only if no closure can still reach it afterwards.
    const home = declaringFunction(symbol);
    const canReturn = refs.every((id) => enclosingFunction(id) === home);
    if (
      fresh &&
      !reassigned.has(symbol) &&
      refs.every((id) => isSafeReference(id, isTrustedCall, canReturn, (e) => copiesArgument(checker, file, e)))
    )
      tracked.add(symbol);
    else heapOpaque = true;
  }

  return {
    volatile,
    mutable: new Set(writes.map((w) => w.symbol)),
    tracked,
    heapOpaque,
    writtenWithin(node) {
      return new Set(writes.filter((w) => w.node.pos >= node.pos && w.node.end <= node.end).map((w) => w.symbol));
    },
    mutatedWithin(node) {
      return new Set(
        writes.filter((w) => w.inPlace && w.node.pos >= node.pos && w.node.end <= node.end).map((w) => w.symbol),
      );
    },
  };
}

/**
 * `new Map(...)` or `new Set(...)` of the environment: a fresh object, whatever its argument (the constructor copies
 * it).
 */
export function isNewCollection(checker: ts.TypeChecker, file: ts.SourceFile, e: ts.Node): e is ts.NewExpression {
  if (
    !ts.isNewExpression(e) ||
    !ts.isIdentifier(e.expression) ||
    (e.expression.text !== "Map" && e.expression.text !== "Set")
  )
    return false;
  const declaration = checker.getSymbolAtLocation(e.expression)?.valueDeclaration;
  return declaration !== undefined && declaration.getSourceFile() !== file;
}

/** `new Map(x)`, `new Set(x)` or `Array.from(x)` of the environment: a new object holding what x yields, not x. */
function copiesArgument(checker: ts.TypeChecker, file: ts.SourceFile, e: ts.Node): boolean {
  if (isNewCollection(checker, file, e)) return true;
  if (!ts.isCallExpression(e)) return false;
  const callee = skipOuter(e.expression);
  if (
    !ts.isPropertyAccessExpression(callee) ||
    callee.name.text !== "from" ||
    !ts.isIdentifier(callee.expression) ||
    callee.expression.text !== "Array"
  )
    return false;
  const declaration = checker.getSymbolAtLocation(callee.expression)?.valueDeclaration;
  return declaration !== undefined && declaration.getSourceFile() !== file;
}

/** A use of an object variable that cannot create a second name for the object. */
function isSafeReference(
  id: ts.Identifier,
  isTrustedCall: (call: ts.CallExpression) => boolean,
  canReturn: boolean,
  copies: (e: ts.Node) => boolean,
): boolean {
  const parent = id.parent;
  // The argument of `new Map(...)` / `new Set(...)`: the constructor copies what it iterates.
  // The argument of `new Map(...)`, `new Set(...)` or `Array.from(...)`: each copies what it iterates.
  if ((ts.isNewExpression(parent) || ts.isCallExpression(parent)) && parent.arguments?.[0] === id && copies(parent))
    return true;
  if (ts.isReturnStatement(parent) && canReturn) return true;
  if ((ts.isVariableDeclaration(parent) && parent.name === id) || ts.isTypeQueryNode(parent)) return true;
  if ((ts.isPropertyAccessExpression(parent) || ts.isElementAccessExpression(parent)) && parent.expression === id)
    return true;
  if (ts.isSpreadElement(parent) || ts.isSpreadAssignment(parent) || ts.isTemplateSpan(parent)) return true;
  if (ts.isForOfStatement(parent) && parent.expression === id) return true;
  if (ts.isPrefixUnaryExpression(parent) || ts.isTypeOfExpression(parent)) return true;
  if (ts.isBinaryExpression(parent)) {
    const op = parent.operatorToken.kind;
    const logical =
      op === ts.SyntaxKind.AmpersandAmpersandToken ||
      op === ts.SyntaxKind.BarBarToken ||
      op === ts.SyntaxKind.QuestionQuestionToken ||
      op === ts.SyntaxKind.CommaToken;
    const assignment = op >= ts.SyntaxKind.FirstAssignment && op <= ts.SyntaxKind.LastAssignment;
    return !logical && !assignment;
  }
  // The argument of a trusted call, or a field of it: the host copies the value.
  if (ts.isCallExpression(parent) && parent.arguments[0] === id && isTrustedCall(parent)) return true;
  const property =
    ts.isPropertyAssignment(parent) && parent.initializer === id
      ? parent
      : ts.isShorthandPropertyAssignment(parent)
        ? parent
        : undefined;
  const call = property?.parent.parent;
  return (
    call !== undefined && ts.isCallExpression(call) && call.arguments[0] === property!.parent && isTrustedCall(call)
  );
}
