import { ts } from "./typescript.js";
import { findActionByFunction } from "../../manifest/index.js";
import type { LoadedAction, ManifestSet } from "../../manifest/index.js";
import { valueSymbol } from "./scan.js";

/** The module a declaration belongs to, when it is one of the generated `declare module "..."` blocks. */
export function declaringModule(declaration: ts.Node): string | undefined {
  for (let node: ts.Node | undefined = declaration; node !== undefined; node = node.parent) {
    if (ts.isModuleDeclaration(node) && ts.isStringLiteral(node.name)) return node.name.text;
  }
  return undefined;
}

/**
 * The API module (`countersign`, `trusted/...`) an identifier refers to, following import aliases
 * and `{ name }` shorthand properties (whose own symbol is the property, not the value).
 */
export function apiModuleOf(checker: ts.TypeChecker, id: ts.Identifier): string | undefined {
  let symbol = valueSymbol(checker, id);
  if (symbol === undefined) return undefined;
  if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  const declaration = symbol.declarations?.[0];
  return declaration === undefined ? undefined : declaringModule(declaration);
}

export type ApiCallee =
  | { kind: "action"; action: LoadedAction }
  | { kind: "contract"; connector: string; name: string }
  | { kind: "countersign"; name: string }
  | { kind: "unresolved" }; // a trusted/<connector> function no loaded manifest declares

/**
 * What an API call resolves to. We ask the checker for the declaration of the resolved signature
 * (not the callee's symbol, which an alias or a container could disguise), then read its module.
 */
export function resolveApiCall(
  checker: ts.TypeChecker,
  set: ManifestSet,
  call: ts.CallExpression,
): ApiCallee | undefined {
  const declaration = checker.getResolvedSignature(call)?.getDeclaration();
  if (declaration === undefined || !ts.isFunctionDeclaration(declaration) || declaration.name === undefined)
    return undefined;
  const module = declaringModule(declaration);
  if (module === undefined) return undefined;
  const name = declaration.name.text;
  if (module === "countersign") return { kind: "countersign", name };
  const contracts = /^trusted\/([a-z][a-z0-9_]*)\/contracts$/.exec(module);
  if (contracts !== null) return { kind: "contract", connector: contracts[1]!, name };
  const connector = /^trusted\/([a-z][a-z0-9_]*)$/.exec(module);
  const action = connector === null ? undefined : findActionByFunction(set, connector[1]!, name);
  return action === undefined ? { kind: "unresolved" } : { kind: "action", action };
}
