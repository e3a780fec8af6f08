import { createRequire } from "node:module";
import type * as TsMorph from "ts-morph";
import { requireCached } from "./code-cache.js";

// The TypeScript compiler that ts-morph bundles, loaded by itself: the analyzer uses the compiler
// API directly, so ts-morph's own wrapper (~50 ms to load) is never needed. Resolved from
// ts-morph's package so that any install layout finds the same copy.
const bundle = createRequire(createRequire(import.meta.url).resolve("ts-morph")).resolve("@ts-morph/common/dist/typescript.js");

export const ts = requireCached(bundle) as typeof TsMorph.ts;

/** The compiler types the analyzer names, under the same `ts.` prefix as the value. */
export declare namespace ts {
  type ArrayLiteralExpression = TsMorph.ts.ArrayLiteralExpression;
  type ArrowFunction = TsMorph.ts.ArrowFunction;
  type BinaryExpression = TsMorph.ts.BinaryExpression;
  type BindingName = TsMorph.ts.BindingName;
  type BindingPattern = TsMorph.ts.BindingPattern;
  type CallExpression = TsMorph.ts.CallExpression;
  type CompilerHost = TsMorph.ts.CompilerHost;
  type CompilerOptions = TsMorph.ts.CompilerOptions;
  type Diagnostic = TsMorph.ts.Diagnostic;
  type DoStatement = TsMorph.ts.DoStatement;
  type ElementAccessExpression = TsMorph.ts.ElementAccessExpression;
  type Expression = TsMorph.ts.Expression;
  type ForOfStatement = TsMorph.ts.ForOfStatement;
  type ForStatement = TsMorph.ts.ForStatement;
  type FunctionDeclaration = TsMorph.ts.FunctionDeclaration;
  type FunctionExpression = TsMorph.ts.FunctionExpression;
  type Identifier = TsMorph.ts.Identifier;
  type MethodDeclaration = TsMorph.ts.MethodDeclaration;
  type ModuleKind = TsMorph.ts.ModuleKind;
  type ModuleResolutionKind = TsMorph.ts.ModuleResolutionKind;
  type NewExpression = TsMorph.ts.NewExpression;
  type Node = TsMorph.ts.Node;
  type FunctionLikeDeclaration = TsMorph.ts.FunctionLikeDeclaration;
  type NodeArray<T extends Node> = TsMorph.ts.NodeArray<T>;
  type NodeFlags = TsMorph.ts.NodeFlags;
  type ObjectLiteralExpression = TsMorph.ts.ObjectLiteralExpression;
  type PostfixUnaryExpression = TsMorph.ts.PostfixUnaryExpression;
  type PrefixUnaryExpression = TsMorph.ts.PrefixUnaryExpression;
  type Program = TsMorph.ts.Program;
  type PropertyAccessExpression = TsMorph.ts.PropertyAccessExpression;
  type PropertyName = TsMorph.ts.PropertyName;
  type ScriptTarget = TsMorph.ts.ScriptTarget;
  type SourceFile = TsMorph.ts.SourceFile;
  type SpreadElement = TsMorph.ts.SpreadElement;
  type Statement = TsMorph.ts.Statement;
  type Symbol = TsMorph.ts.Symbol;
  type SyntaxKind = TsMorph.ts.SyntaxKind;
  type TryStatement = TsMorph.ts.TryStatement;
  type TypeChecker = TsMorph.ts.TypeChecker;
  type VariableDeclarationList = TsMorph.ts.VariableDeclarationList;
  type WhileStatement = TsMorph.ts.WhileStatement;
}
