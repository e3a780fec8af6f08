import type { ts } from "./compile/typescript.js";
import type { Diagnostic } from "../model/index.js";

/** An error diagnostic at `node`'s first character, 1-based as editors show it. */
export function diagnosticAt(
  file: ts.SourceFile,
  node: ts.Node,
  code: string,
  message: string,
  construct?: string,
): Diagnostic {
  const { line, character } = file.getLineAndCharacterOfPosition(node.getStart(file));
  const diagnostic: Diagnostic = { severity: "error", code, message, line: line + 1, column: character + 1 };
  if (construct !== undefined) diagnostic.construct = construct;
  return diagnostic;
}
