import { ts } from "../compile/typescript.js";
import type { Diagnostic } from "../../model/index.js";
import { diagnosticAt } from "../diagnostic.js";

/**
 * Types that compute: with conditional types (and `infer`) a type can recurse, and mapped and
 * template literal types multiply unions; the checker then works for seconds or minutes inside
 * one declaration, where it never looks at the analysis's deadline. A program states its types;
 * it does not compute them. Checked on the syntax alone, before the type check runs.
 */
const COMPUTING = new Map<ts.SyntaxKind, string>([
  [ts.SyntaxKind.ConditionalType, "conditional type"],
  [ts.SyntaxKind.InferType, "infer type"],
  [ts.SyntaxKind.MappedType, "mapped type"],
  [ts.SyntaxKind.TemplateLiteralType, "template literal type"],
]);

/** Every computing type in `file` (nested no deeper than checkNesting allows). */
export function checkTypeLevel(file: ts.SourceFile): Diagnostic[] {
  const out: Diagnostic[] = [];
  const visit = (node: ts.Node): void => {
    const construct = COMPUTING.get(node.kind);
    if (construct !== undefined) {
      out.push(
        diagnosticAt(
          file,
          node,
          "refused_construct",
          `a ${construct} is refused: type-level computation can keep the type check busy without bound; write the type out`,
          construct,
        ),
      );
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}
