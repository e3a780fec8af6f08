import { ts } from "../compile/typescript.js";
import type { Diagnostic } from "../../model/index.js";
import { diagnosticAt } from "../diagnostic.js";

/**
 * Imports: named imports from `countersign`, `trusted/<connector>` and `trusted/<connector>/contracts`
 * only. No namespace or default import (every trusted call must be a direct call of a name), no
 * side-effect import, no import attributes, nothing else.
 */
export function checkImports(file: ts.SourceFile, modules: ReadonlySet<string>): Diagnostic[] {
  const out: Diagnostic[] = [];
  const refuse = (node: ts.Node, message: string, construct: string): void => {
    out.push(diagnosticAt(file, node, "refused_import", message, construct));
  };
  for (const statement of file.statements) {
    if (!ts.isImportDeclaration(statement)) continue;
    const specifier = statement.moduleSpecifier;
    const name = ts.isStringLiteral(specifier) ? specifier.text : "";
    if (!modules.has(name)) {
      refuse(
        specifier,
        `import of "${name}" refused: programs may import only "countersign", "trusted/<connector>" and "trusted/<connector>/contracts" (${[...modules].sort().join(", ")})`,
        `import "${name}"`,
      );
      continue;
    }
    const clause = statement.importClause;
    if (clause === undefined)
      refuse(statement, `a side-effect import of "${name}" is refused: import names from it`, "side-effect import");
    else if (clause.name !== undefined)
      refuse(clause.name, `a default import of "${name}" is refused: use a named import`, "default import");
    else if (clause.namedBindings !== undefined && ts.isNamespaceImport(clause.namedBindings)) {
      refuse(
        clause.namedBindings,
        `\`import * as\` of "${name}" is refused: import each function by name so every call is visible`,
        "namespace import",
      );
    }
    if (statement.attributes !== undefined)
      refuse(statement.attributes, "import attributes are refused", "import attributes");
  }
  return out;
}
