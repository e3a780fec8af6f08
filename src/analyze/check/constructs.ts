import { ts } from "../compile/typescript.js";
import { HandleId, type Diagnostic } from "../../model/index.js";
import { diagnosticAt } from "../diagnostic.js";
import type { ProgramShape } from "../compile/program-shape.js";
import { valueSymbol } from "../compile/scan.js";
import { OUTER_KINDS, skipOuter } from "../compile/skip-outer.js";
import { EXPRESSIONS } from "../interpret/expressions.js";
import { STATEMENTS } from "../interpret/statements.js";
import { apiModuleOf } from "../compile/trusted-callee.js";

/** Names that reach the host, the global object or code from strings, wherever they appear as a value. */
// Maps, not object literals: a lookup of "constructor" or "__proto__" must not find Object.prototype's.
const FORBIDDEN_NAMES = new Map<string, string>(
  Object.entries({
    eval: "runs code from a string",
    Function: "runs code from a string",
    require: "loads modules at run time",
    globalThis: "reaches the global object",
    window: "reaches the global object",
    self: "reaches the global object",
    global: "reaches the global object",
    process: "reaches the host process",
    Proxy: "intercepts operations invisibly",
    Reflect: "reaches objects' internals",
    Symbol: "reaches hidden protocol hooks",
    arguments: "aliases parameters",
    module: "reaches the module system",
    exports: "reaches the module system",
    WebAssembly: "runs code the analysis cannot see",
  }),
);

/** Property names that reach prototypes or constructors (and so `Function`). */
const FORBIDDEN_PROPERTIES = new Map<string, string>([
  ["constructor", "reaches the Function constructor"],
  ["__proto__", "changes or reaches prototypes"],
  ...Object.entries({
    prototype: "changes or reaches prototypes",
    __defineGetter__: "defines hidden accessors",
    __defineSetter__: "defines hidden accessors",
    __lookupGetter__: "reaches hidden accessors",
    __lookupSetter__: "reaches hidden accessors",
    caller: "reaches other functions",
    callee: "reaches other functions",
  }),
]);

/**
 * Methods the engine calls by itself: conversions (`${o}`, `o + ""`, String(o)) and JSON.stringify,
 * which marshals a trusted call's arguments. Defining one would run hidden code there, or change
 * what is sent from what was checked.
 */
const HOOK_PROPERTIES = new Set(["toJSON", "toString", "valueOf"]);

/** Why a computed member access whose key is not surely a number is refused. */
export const COMPUTED_KEY = "may reach any property (constructor, __proto__...); use a literal key or a number";

/** Statement and declaration kinds refused outright, with why. */
const REFUSED_KINDS: Partial<Record<ts.SyntaxKind, [string, string]>> = {
  [ts.SyntaxKind.WithStatement]: ["with", "makes names resolve at run time"],
  [ts.SyntaxKind.DebuggerStatement]: ["debugger", "has no place in an agent program"],
  [ts.SyntaxKind.LabeledStatement]: ["label", "labels are not supported; use a flag or a function"],
  [ts.SyntaxKind.ClassDeclaration]: ["class", "classes are not supported; use functions and object literals"],
  [ts.SyntaxKind.ClassExpression]: ["class", "classes are not supported; use functions and object literals"],
  [ts.SyntaxKind.GetAccessor]: ["getter", "runs code on a property read"],
  [ts.SyntaxKind.SetAccessor]: ["setter", "runs code on a property write"],
  [ts.SyntaxKind.DeleteExpression]: ["delete", "changes objects' shape"],
  [ts.SyntaxKind.YieldExpression]: ["generator", "generators are not supported"],
  [ts.SyntaxKind.TaggedTemplateExpression]: ["tagged template", "calls a function invisibly"],
  [ts.SyntaxKind.MetaProperty]: ["import.meta / new.target", "reaches the module or call context"],
  [ts.SyntaxKind.ThisKeyword]: ["this", "is not supported; pass values explicitly"],
  [ts.SyntaxKind.SuperKeyword]: ["super", "is not supported"],
  [ts.SyntaxKind.ImportKeyword]: ["import()", "loads modules at run time"],
  [ts.SyntaxKind.ForInStatement]: ["for...in", "walks inherited keys; use Object.keys"],
  [ts.SyntaxKind.EnumDeclaration]: ["enum", "enums are not supported; use a union of literals"],
  [ts.SyntaxKind.ModuleDeclaration]: ["namespace / declare module", "programs cannot declare modules or globals"],
  [ts.SyntaxKind.ImportEqualsDeclaration]: ["import =", "loads modules"],
  [ts.SyntaxKind.ExportDeclaration]: ["export", "a program exports only its default `program(...)`"],
  [ts.SyntaxKind.Decorator]: ["decorator", "calls a function invisibly"],
  [ts.SyntaxKind.AnyKeyword]: ["any", "turns off type checking; use unknown"],
  [ts.SyntaxKind.ImportType]: ["import type expression", "loads module types"],
  [ts.SyntaxKind.SwitchStatement]: ["switch", "switch is not supported; use if/else"],
  [ts.SyntaxKind.BigIntLiteral]: ["bigint", "bigint is not supported"],
};

/** Kinds the interpreter's handlers read as parts of their parent's node, not as nodes of their own. */
const PARTS = [
  ts.SyntaxKind.SourceFile,
  ts.SyntaxKind.EndOfFileToken,
  ts.SyntaxKind.CatchClause,
  ts.SyntaxKind.VariableDeclaration,
  ts.SyntaxKind.TemplateHead,
  ts.SyntaxKind.TemplateMiddle,
  ts.SyntaxKind.TemplateTail,
  ts.SyntaxKind.TemplateSpan,
  ts.SyntaxKind.PropertyAssignment,
  ts.SyntaxKind.ShorthandPropertyAssignment,
  ts.SyntaxKind.SpreadAssignment,
  ts.SyntaxKind.SpreadElement,
  ts.SyntaxKind.OmittedExpression,
  ts.SyntaxKind.ObjectBindingPattern,
  ts.SyntaxKind.ArrayBindingPattern,
  ts.SyntaxKind.Parameter,
  ts.SyntaxKind.AsyncKeyword,
  ts.SyntaxKind.ExportAssignment,
  ts.SyntaxKind.ImportDeclaration,
];

/**
 * Kinds that pass with no check beyond their children, derived from the interpreter: the
 * statements it runs, the expressions it evaluates, the wrappers it looks through and the parts
 * its handlers read. A construct the interpreter learns is allowed here with no second list.
 */
const ALLOWED: ReadonlySet<ts.SyntaxKind> = new Set([
  ...STATEMENTS.keys(),
  ...EXPRESSIONS.keys(),
  ...OUTER_KINDS,
  ...PARTS,
]);

/**
 * The allowlist over the program's syntax: every node kind the interpreter handles passes (with
 * the checks below), every refused construct is named with why, and any other kind is
 * `unsupported`. Names are compared by their value (`s\u0065ndEmail` is `sendEmail`), and trusted
 * functions are recognized through the checker, not by spelling.
 */
export function checkConstructs(
  checker: ts.TypeChecker,
  file: ts.SourceFile,
  shape: ProgramShape | undefined,
  deferred?: Set<ts.ElementAccessExpression>,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  const refuse = (node: ts.Node, construct: string, why: string): void => {
    out.push(diagnosticAt(file, node, "refused_construct", `${construct} is refused: it ${why}`, construct));
  };
  const guaranteeCalls = new Set(shape?.guarantees.filter(ts.isCallExpression));
  // Even when the program's form is wrong (reported by programShape), its `program(...)` call and
  // `main` method are not refused a second time.
  const exported = file.statements.find(ts.isExportAssignment)?.expression;
  const programCall = exported !== undefined && ts.isCallExpression(exported) ? exported : undefined;
  const isMainMethod = (node: ts.MethodDeclaration): boolean =>
    programCall !== undefined &&
    node.parent === programCall.arguments[0] &&
    ts.isIdentifier(node.name) &&
    node.name.text === "main";

  const checkName = (id: ts.Identifier): void => {
    const why = FORBIDDEN_NAMES.get(id.text);
    if (why !== undefined) refuse(id, id.text, why);
  };
  const checkPropertyName = (name: ts.Node): void => {
    const text =
      ts.isIdentifier(name) ||
      ts.isStringLiteral(name) ||
      ts.isNoSubstitutionTemplateLiteral(name) ||
      ts.isPrivateIdentifier(name)
        ? name.text
        : undefined;
    if (text === undefined) return;
    const why = FORBIDDEN_PROPERTIES.get(text);
    if (why !== undefined) refuse(name, `${text} access`, why);
  };

  /** A property being defined (in an object literal or by an assignment) must not be a hook the engine calls. */
  const checkDefinedName = (name: ts.Node): void => {
    const text =
      ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNoSubstitutionTemplateLiteral(name)
        ? name.text
        : undefined;
    if (text !== undefined && HOOK_PROPERTIES.has(text))
      refuse(
        name,
        `a ${text} property`,
        "is called implicitly (by conversions and JSON.stringify, so when a trusted call's arguments are sent): it would run hidden code or change what is sent",
      );
  };

  /** A reference to something the API exports: trusted functions, contract helpers, `program`. */
  const checkApiReference = (id: ts.Identifier): void => {
    const module = apiModuleOf(checker, id);
    if (module === undefined) return;
    const parent = id.parent;
    const called = ts.isCallExpression(parent) && parent.expression === id;
    if (module === "countersign" && id.text === "fromHandle") {
      if (!(called && isHandleLiteral(parent.arguments[0]) && parent.arguments.length === 1)) {
        refuse(
          id,
          `${id.text} used here`,
          'takes one handle id as a string literal, e.g. `await fromHandle("h_abc")`: the analysis must know which handle the program uses',
        );
      }
    } else if (module === "countersign") {
      if (!(called && parent === programCall))
        refuse(id, `${id.text} used here`, "may only be called once, as `export default program({...})`");
    } else if (module.endsWith("/contracts")) {
      if (!(called && guaranteeCalls.has(parent)))
        refuse(id, `${id.text} used here`, "is a contract helper: call it only as an element of `guarantees`");
    } else if (!called) {
      refuse(
        id,
        `trusted function ${id.text} used as a value`,
        "hides calls from the analysis; call it directly, e.g. `await " + id.text + "({...})`",
      );
    }
  };

  const visitType = (node: ts.Node): void => {
    const refused = REFUSED_KINDS[node.kind];
    if (refused !== undefined && (node.kind === ts.SyntaxKind.AnyKeyword || node.kind === ts.SyntaxKind.ImportType))
      refuse(node, refused[0], refused[1]);
    ts.forEachChild(node, visitType);
  };

  const visit = (node: ts.Node): void => {
    if (
      ts.isTypeNode(node) ||
      ts.isTypeAliasDeclaration(node) ||
      ts.isInterfaceDeclaration(node) ||
      ts.isTypeParameterDeclaration(node)
    ) {
      if (ts.isExpressionWithTypeArguments(node) && !ts.isHeritageClause(node.parent)) {
        // `f<T>` as an expression (an instantiation expression): check it as code.
      } else return visitType(node);
    }
    const refused = REFUSED_KINDS[node.kind];
    if (refused !== undefined) return refuse(node, refused[0], refused[1]);
    if (ts.isImportDeclaration(node)) return; // checked by checkImports
    if (ts.isIdentifier(node)) {
      checkName(node);
      checkApiReference(node);
      return;
    }
    if (ts.isPrivateIdentifier(node)) return refuse(node, "private name", "is not supported");
    if (ts.isToken(node) && node.kind >= ts.SyntaxKind.FirstPunctuation && node.kind <= ts.SyntaxKind.LastPunctuation) {
      if (node.kind === ts.SyntaxKind.AsteriskToken && node.parent !== undefined && !ts.isBinaryExpression(node.parent))
        refuse(node, "generator", "generators are not supported");
      return;
    }
    if (ts.isModifier(node) && node.kind !== ts.SyntaxKind.AsyncKeyword)
      return refuse(node, `${ts.tokenToString(node.kind)} modifier`, "is not allowed in a program");
    if (ts.isVariableDeclarationList(node)) {
      const flags = node.flags & (ts.NodeFlags.Let | ts.NodeFlags.Const | ts.NodeFlags.Using | ts.NodeFlags.AwaitUsing);
      if (flags !== ts.NodeFlags.Let && flags !== ts.NodeFlags.Const)
        return refuse(node, "var / using", "is not supported; use const or let");
    } else if (ts.isPropertyAccessExpression(node)) {
      checkPropertyName(node.name);
      visit(node.expression);
      return;
    } else if (ts.isElementAccessExpression(node)) {
      checkElementKey(node);
    } else if (
      ts.isPropertyAssignment(node) ||
      ts.isShorthandPropertyAssignment(node) ||
      ts.isMethodDeclaration(node)
    ) {
      checkPropertyName(node.name);
      if (
        ts.isComputedPropertyName(node.name) &&
        !(ts.isStringLiteral(node.name.expression) || ts.isNumericLiteral(node.name.expression))
      ) {
        return refuse(node.name, "computed property name", "hides which property is set; write the name");
      }
      if (ts.isComputedPropertyName(node.name)) checkPropertyName(node.name.expression);
      checkDefinedName(ts.isComputedPropertyName(node.name) ? node.name.expression : node.name);
      if (ts.isMethodDeclaration(node) && !isMainMethod(node))
        return refuse(node, "method", "methods are not supported; use a property with an arrow function");
      if (ts.isPropertyAssignment(node)) {
        if (!ts.isComputedPropertyName(node.name)) return visit(node.initializer);
      }
    } else if (ts.isBindingElement(node)) {
      if (node.propertyName !== undefined) {
        if (ts.isComputedPropertyName(node.propertyName))
          return refuse(node.propertyName, "computed property name", "hides which property is read; write the name");
        checkPropertyName(node.propertyName);
      } else checkPropertyName(node.name);
    } else if (ts.isForOfStatement(node)) {
      if (node.awaitModifier !== undefined) return refuse(node, "for await", "is not supported");
      if (!ts.isVariableDeclarationList(node.initializer))
        return refuse(
          node.initializer,
          "for...of over an existing variable",
          "is not supported; declare the loop variable with const",
        );
    } else if (ts.isBinaryExpression(node)) {
      const op = node.operatorToken.kind;
      if (
        op >= ts.SyntaxKind.FirstAssignment &&
        op <= ts.SyntaxKind.LastAssignment &&
        (ts.isObjectLiteralExpression(node.left) || ts.isArrayLiteralExpression(node.left))
      ) {
        return refuse(node.left, "destructuring assignment", "is not supported; declare new variables with const");
      }
      const target = skipOuter(node.left);
      if (
        op >= ts.SyntaxKind.FirstAssignment &&
        op <= ts.SyntaxKind.LastAssignment &&
        (ts.isPropertyAccessExpression(target) || ts.isElementAccessExpression(target))
      ) {
        checkDefinedName(ts.isPropertyAccessExpression(target) ? target.name : skipOuter(target.argumentExpression));
      }
    } else if (ts.isBreakStatement(node) || ts.isContinueStatement(node)) {
      if (node.label !== undefined) return refuse(node, "label", "labels are not supported");
      return;
    } else if (ts.isCallExpression(node)) {
      const api = ts.isIdentifier(node.expression) ? apiModuleOf(checker, node.expression) : undefined;
      if (api !== undefined && node.arguments.some(ts.isSpreadElement))
        return refuse(node, "spread arguments in an API call", "hide which arguments are passed");
    } else if (!ALLOWED.has(node.kind) && !ts.isBindingElement(node)) {
      out.push(
        diagnosticAt(file, node, "unsupported", `${describeKind(node.kind)} is not supported`, describeKind(node.kind)),
      );
      return;
    }
    ts.forEachChild(node, visit);
  };

  let writes: Map<ts.Symbol, Write[]> | undefined; // every variable's writes, found once and only if needed
  /**
   * `x[k]`: a literal key that is not a forbidden name, or a key that is a number by construction.
   * Any other key is left to the interpreter when `deferred` is given: it must show the key to be
   * a number wherever the access runs (an index from indexOf, Math.floor, a callback's index).
   */
  const checkElementKey = (node: ts.ElementAccessExpression): void => {
    const key = node.argumentExpression;
    if (ts.isStringLiteral(key) || ts.isNoSubstitutionTemplateLiteral(key)) return checkPropertyName(key);
    writes ??= writesByVariable(file, checker);
    if (isNumeric(checker, writes, key)) return;
    if (deferred !== undefined) deferred.add(node);
    else refuse(key, "computed member access", COMPUTED_KEY);
  };

  // Top level: declarations only, so that everything that runs is in main or called from it.
  for (const statement of file.statements) {
    const allowed =
      ts.isImportDeclaration(statement) ||
      ts.isExportAssignment(statement) ||
      ts.isFunctionDeclaration(statement) ||
      ts.isVariableStatement(statement) ||
      ts.isTypeAliasDeclaration(statement) ||
      ts.isInterfaceDeclaration(statement) ||
      ts.isEmptyStatement(statement);
    if (!allowed && REFUSED_KINDS[statement.kind] === undefined) {
      out.push(
        diagnosticAt(
          file,
          statement,
          "refused_construct",
          "top-level statements other than declarations are refused: put the work in main",
          "top-level statement",
        ),
      );
    }
  }
  if (shape !== undefined) for (const g of shape.guarantees) checkGuaranteeForm(g);
  visit(file);
  return out;

  /** Guarantees are data: literals, names of constants, and one contract helper call per element. */
  function checkGuaranteeForm(g: ts.Expression): void {
    const walk = (node: ts.Node, top: boolean): void => {
      if (ts.isCallExpression(node) && !(top && node === g))
        return refuse(
          node,
          "call inside a guarantee",
          "guarantees must be data: a constraint object or one contract helper call with constant arguments",
        );
      if (ts.isArrowFunction(node) || ts.isFunctionExpression(node) || ts.isAwaitExpression(node))
        return refuse(node, "code inside a guarantee", "guarantees must be data");
      ts.forEachChild(node, (child) => walk(child, false));
    };
    walk(g, true);
  }
}

/** Whether `e` evaluates to a number whatever the types say: numeric literals, arithmetic, counters. */
function isNumeric(
  checker: ts.TypeChecker,
  writes: Map<ts.Symbol, Write[]>,
  e: ts.Expression,
  seen = new Set<ts.Symbol>(),
): boolean {
  if (ts.isParenthesizedExpression(e)) return isNumeric(checker, writes, e.expression, seen);
  if (ts.isNumericLiteral(e)) return true;
  if (ts.isPrefixUnaryExpression(e) || ts.isPostfixUnaryExpression(e)) {
    return e.operator !== ts.SyntaxKind.ExclamationToken; // -x, +x, ~x, ++x, x-- are numbers (bigint is refused)
  }
  if (ts.isBinaryExpression(e)) {
    const op = e.operatorToken.kind;
    if (op === ts.SyntaxKind.PlusToken)
      return isNumeric(checker, writes, e.left, seen) && isNumeric(checker, writes, e.right, seen);
    const arithmetic = [
      ts.SyntaxKind.MinusToken,
      ts.SyntaxKind.AsteriskToken,
      ts.SyntaxKind.SlashToken,
      ts.SyntaxKind.PercentToken,
      ts.SyntaxKind.AsteriskAsteriskToken,
      ts.SyntaxKind.AmpersandToken,
      ts.SyntaxKind.BarToken,
      ts.SyntaxKind.CaretToken,
      ts.SyntaxKind.LessThanLessThanToken,
      ts.SyntaxKind.GreaterThanGreaterThanToken,
      ts.SyntaxKind.GreaterThanGreaterThanGreaterThanToken,
    ];
    return arithmetic.includes(op);
  }
  if (ts.isConditionalExpression(e))
    return isNumeric(checker, writes, e.whenTrue, seen) && isNumeric(checker, writes, e.whenFalse, seen);
  if (ts.isCallExpression(e)) return returnsNumber(checker, e);
  if (ts.isIdentifier(e)) {
    const symbol = valueSymbol(checker, e);
    const declaration = symbol?.valueDeclaration;
    if (
      symbol === undefined ||
      declaration === undefined ||
      !ts.isVariableDeclaration(declaration) ||
      !ts.isIdentifier(declaration.name) ||
      declaration.initializer === undefined
    )
      return false;
    if (seen.has(symbol)) return true; // a cycle through the variable's own writes: the other writes decide
    seen.add(symbol);
    if (!isNumeric(checker, writes, declaration.initializer, seen)) return false;
    return (writes.get(symbol) ?? []).every((w) => w === "numeric" || isNumeric(checker, writes, w, seen));
  }
  return false;
}

/** The environment's functions that always return a number: Math's, Number, parseInt, parseFloat. */
const NUMBER_FUNCTIONS = new Set([
  "Number",
  "parseInt",
  "parseFloat",
  "Number.parseInt",
  "Number.parseFloat",
  "Date.now",
]);

/**
 * A call of one of the environment's number functions, by a name that resolves to the environment (not a local one).
 */
function returnsNumber(checker: ts.TypeChecker, call: ts.CallExpression): boolean {
  const callee = skipOuter(call.expression);
  const root = ts.isPropertyAccessExpression(callee) ? skipOuter(callee.expression) : callee;
  if (!ts.isIdentifier(root)) return false;
  const name = ts.isPropertyAccessExpression(callee) ? `${root.text}.${callee.name.text}` : root.text;
  if (!(NUMBER_FUNCTIONS.has(name) || (root.text === "Math" && name !== "Math"))) return false;
  const declaration = checker.getSymbolAtLocation(root)?.valueDeclaration;
  return declaration !== undefined && declaration.getSourceFile() !== call.getSourceFile();
}

type Write = ts.Expression | "numeric";

/** Every write to each variable, in one pass: the assigned expression, or "numeric" for ++, --, -= and the like. */
function writesByVariable(file: ts.SourceFile, checker: ts.TypeChecker): Map<ts.Symbol, Write[]> {
  const out = new Map<ts.Symbol, Write[]>();
  const add = (target: ts.Identifier, write: Write): void => {
    const symbol = checker.getSymbolAtLocation(target);
    if (symbol === undefined) return;
    const list = out.get(symbol);
    if (list === undefined) out.set(symbol, [write]);
    else list.push(write);
  };
  const visit = (node: ts.Node): void => {
    if ((ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) && ts.isIdentifier(node.operand))
      add(node.operand, "numeric");
    if (ts.isBinaryExpression(node) && ts.isIdentifier(node.left)) {
      const op = node.operatorToken.kind;
      if (op === ts.SyntaxKind.EqualsToken) add(node.left, node.right);
      else if (op === ts.SyntaxKind.PlusEqualsToken)
        add(node.left, node.right); // numeric only if the right side is
      else if (op > ts.SyntaxKind.FirstAssignment && op <= ts.SyntaxKind.LastAssignment)
        add(
          node.left,
          op === ts.SyntaxKind.BarBarEqualsToken ||
            op === ts.SyntaxKind.AmpersandAmpersandEqualsToken ||
            op === ts.SyntaxKind.QuestionQuestionEqualsToken
            ? node.right
            : "numeric",
        );
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

function describeKind(kind: ts.SyntaxKind): string {
  return ts.SyntaxKind[kind].replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
}

/** A handle id written out in the program: the only argument fromHandle takes. */
function isHandleLiteral(node: ts.Expression | undefined): boolean {
  return (
    node !== undefined &&
    (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) &&
    HandleId.safeParse(node.text).success
  );
}
