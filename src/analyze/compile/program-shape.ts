import { ts } from "./typescript.js";
import type { Diagnostic } from "../../model/index.js";
import type { FunctionNode } from "../interpret/calls.js";
import { diagnosticAt } from "../diagnostic.js";
import { propertyKey } from "../interpret/expressions.js";
import { apiModuleOf } from "./trusted-callee.js";

/** The parts of `export default program({ rationale, guarantees, main })`. */
export interface ProgramShape {
  call: ts.CallExpression;
  rationale: string;
  guarantees: readonly ts.Expression[];
  main: FunctionNode;
}

/**
 * Find the one `export default program({...})` and check its form: `rationale` a string literal,
 * `guarantees` an array literal (optional), `main` an async function; nothing else.
 */
export function programShape(
  checker: ts.TypeChecker,
  file: ts.SourceFile,
): { shape?: ProgramShape; diagnostics: Diagnostic[] } {
  const problem = (node: ts.Node, message: string): { diagnostics: Diagnostic[] } => ({
    diagnostics: [diagnosticAt(file, node, "invalid_program", message)],
  });
  const exports = file.statements.filter(ts.isExportAssignment);
  if (exports.length === 0)
    return problem(
      file.statements[0] ?? file,
      "the program must end with `export default program({ rationale, guarantees, main })`",
    );
  if (exports.length > 1) return problem(exports[1]!, "the program must have exactly one `export default`");
  const exported = exports[0]!;
  if (exported.isExportEquals === true) return problem(exported, "use `export default program({...})`, not `export =`");
  const call = exported.expression;
  if (
    !ts.isCallExpression(call) ||
    !ts.isIdentifier(call.expression) ||
    apiModuleOf(checker, call.expression) !== "countersign" ||
    call.expression.text !== "program"
  ) {
    return problem(call, 'the default export must be a call of `program` imported from "countersign"');
  }
  const spec = call.arguments[0];
  if (call.arguments.length !== 1 || spec === undefined || !ts.isObjectLiteralExpression(spec))
    return problem(call, "program(...) takes one object literal: { rationale, guarantees, main }");

  let rationale: string | undefined;
  let guarantees: readonly ts.Expression[] = [];
  let main: FunctionNode | undefined;
  const seen = new Set<string>();
  for (const property of spec.properties) {
    const key = ts.isSpreadAssignment(property) ? undefined : propertyKey(property.name);
    if (key === undefined || seen.has(key))
      return problem(
        property,
        key === undefined
          ? "program(...) takes only rationale, guarantees and main, written out"
          : `${key} is given twice`,
      );
    seen.add(key);
    if (key === "rationale") {
      const value = ts.isPropertyAssignment(property) ? property.initializer : undefined;
      if (value === undefined || !(ts.isStringLiteral(value) || ts.isNoSubstitutionTemplateLiteral(value)))
        return problem(property, "rationale must be a string literal");
      rationale = value.text;
    } else if (key === "guarantees") {
      const value = ts.isPropertyAssignment(property) ? property.initializer : undefined;
      if (value === undefined || !ts.isArrayLiteralExpression(value))
        return problem(property, "guarantees must be an array literal");
      guarantees = value.elements;
    } else if (key === "main") {
      const fn = ts.isMethodDeclaration(property)
        ? property
        : ts.isPropertyAssignment(property) &&
            (ts.isArrowFunction(property.initializer) || ts.isFunctionExpression(property.initializer))
          ? property.initializer
          : undefined;
      if (
        fn === undefined ||
        !(ts.getCombinedModifierFlags(fn) & ts.ModifierFlags.Async) ||
        fn.asteriskToken !== undefined
      )
        return problem(property, "main must be an async function");
      main = fn;
    } else return problem(property, `program(...) has no \`${key}\`; it takes rationale, guarantees and main`);
  }
  if (rationale === undefined) return problem(spec, "program(...) needs a rationale");
  if (main === undefined) return problem(spec, "program(...) needs an async main function");
  return { shape: { call, rationale, guarantees, main }, diagnostics: [] };
}
