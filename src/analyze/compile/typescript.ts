import { createRequire } from "node:module";
import type * as TsApi from "typescript6";
import { requireCached } from "./code-cache.js";

// The TypeScript compiler the analysis is written for, through its package's public entry: the
// `typescript6` dependency, an exact-pinned alias of `typescript` 6.0 (the project's `typescript`
// is the native 7 preview, for benchmarks). Loaded through the code cache, as one CommonJS file.
const entry = createRequire(import.meta.url).resolve("typescript6");

export const ts = requireCached(entry) as typeof TsApi;

/**
 * The two parts of the compiler outside its published types that the shared checker (compile.ts)
 * needs: the binder, which a program runs on each of its files when it makes its checker, and the
 * parser's flag for a file with `import(...)` calls or import types. The dependency is
 * exact-pinned; a compiler without them fails here, at load.
 */
export const tsInternals = (() => {
  const bindSourceFile = (ts as unknown as { bindSourceFile?: unknown }).bindSourceFile;
  const dynamicImport = (ts.NodeFlags as unknown as Record<string, unknown>).PossiblyContainsDynamicImport;
  if (typeof bindSourceFile !== "function" || typeof dynamicImport !== "number")
    throw new Error("this TypeScript compiler lacks bindSourceFile or NodeFlags.PossiblyContainsDynamicImport");
  return {
    bindSourceFile: bindSourceFile as (file: TsApi.SourceFile, options: TsApi.CompilerOptions) => void,
    possiblyContainsDynamicImport: dynamicImport,
  };
})();

/** The compiler types the analyzer names, under the same `ts.` prefix as the value. */
export declare namespace ts {
  type ArrayLiteralExpression = TsApi.ArrayLiteralExpression;
  type ArrowFunction = TsApi.ArrowFunction;
  type AsExpression = TsApi.AsExpression;
  type AwaitExpression = TsApi.AwaitExpression;
  type BinaryExpression = TsApi.BinaryExpression;
  type BindingName = TsApi.BindingName;
  type BindingPattern = TsApi.BindingPattern;
  type Block = TsApi.Block;
  type CallExpression = TsApi.CallExpression;
  type CancellationToken = TsApi.CancellationToken;
  type CompilerHost = TsApi.CompilerHost;
  type CompilerOptions = TsApi.CompilerOptions;
  type ConditionalExpression = TsApi.ConditionalExpression;
  type Diagnostic = TsApi.Diagnostic;
  type DoStatement = TsApi.DoStatement;
  type ElementAccessExpression = TsApi.ElementAccessExpression;
  type Expression = TsApi.Expression;
  type ExpressionStatement = TsApi.ExpressionStatement;
  type ForOfStatement = TsApi.ForOfStatement;
  type ForStatement = TsApi.ForStatement;
  type FunctionDeclaration = TsApi.FunctionDeclaration;
  type FunctionExpression = TsApi.FunctionExpression;
  type FunctionLikeDeclaration = TsApi.FunctionLikeDeclaration;
  type Identifier = TsApi.Identifier;
  type IfStatement = TsApi.IfStatement;
  type MethodDeclaration = TsApi.MethodDeclaration;
  type ModuleKind = TsApi.ModuleKind;
  type ModuleResolutionKind = TsApi.ModuleResolutionKind;
  type NewExpression = TsApi.NewExpression;
  type Node = TsApi.Node;
  type NodeArray<T extends Node> = TsApi.NodeArray<T>;
  type NodeFlags = TsApi.NodeFlags;
  type NonNullExpression = TsApi.NonNullExpression;
  type NoSubstitutionTemplateLiteral = TsApi.NoSubstitutionTemplateLiteral;
  type NumericLiteral = TsApi.NumericLiteral;
  type ObjectLiteralExpression = TsApi.ObjectLiteralExpression;
  type ParenthesizedExpression = TsApi.ParenthesizedExpression;
  type PostfixUnaryExpression = TsApi.PostfixUnaryExpression;
  type PrefixUnaryExpression = TsApi.PrefixUnaryExpression;
  type Program = TsApi.Program;
  type PropertyAccessExpression = TsApi.PropertyAccessExpression;
  type PropertyName = TsApi.PropertyName;
  type ReturnStatement = TsApi.ReturnStatement;
  type SatisfiesExpression = TsApi.SatisfiesExpression;
  type ScriptTarget = TsApi.ScriptTarget;
  type SourceFile = TsApi.SourceFile;
  type SpreadElement = TsApi.SpreadElement;
  type Statement = TsApi.Statement;
  type StringLiteral = TsApi.StringLiteral;
  type Symbol = TsApi.Symbol;
  type SyntaxKind = TsApi.SyntaxKind;
  type TemplateExpression = TsApi.TemplateExpression;
  type ThrowStatement = TsApi.ThrowStatement;
  type TransformerFactory<T extends Node> = TsApi.TransformerFactory<T>;
  type TryStatement = TsApi.TryStatement;
  type TypeAssertion = TsApi.TypeAssertion;
  type TypeChecker = TsApi.TypeChecker;
  type TypeOfExpression = TsApi.TypeOfExpression;
  type VariableDeclarationList = TsApi.VariableDeclarationList;
  type VariableStatement = TsApi.VariableStatement;
  type VoidExpression = TsApi.VoidExpression;
  type WhileStatement = TsApi.WhileStatement;
}
