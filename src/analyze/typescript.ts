import { createRequire } from "node:module";
import type * as TsMorph from "ts-morph";

// ts-morph loaded through require: importing it as an ES module makes Node scan its re-exports
// for names, ~100 ms of lexing the bundled TypeScript on every cold `check`.
const tsMorph = createRequire(import.meta.url)("ts-morph") as typeof TsMorph;

export const ts: typeof TsMorph.ts = tsMorph.ts;
export const Project: typeof TsMorph.Project = tsMorph.Project;
export type Project = TsMorph.Project;

/** The compiler types the analyzer names, under the same `ts.` prefix as the value. */
export declare namespace ts {
  type ArrayLiteralExpression = TsMorph.ts.ArrayLiteralExpression;
  type ArrowFunction = TsMorph.ts.ArrowFunction;
  type BinaryExpression = TsMorph.ts.BinaryExpression;
  type BindingName = TsMorph.ts.BindingName;
  type BindingPattern = TsMorph.ts.BindingPattern;
  type CallExpression = TsMorph.ts.CallExpression;
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
  type PropertyAccessExpression = TsMorph.ts.PropertyAccessExpression;
  type PropertyName = TsMorph.ts.PropertyName;
  type ScriptTarget = TsMorph.ts.ScriptTarget;
  type SourceFile = TsMorph.ts.SourceFile;
  type Statement = TsMorph.ts.Statement;
  type Symbol = TsMorph.ts.Symbol;
  type SyntaxKind = TsMorph.ts.SyntaxKind;
  type TryStatement = TsMorph.ts.TryStatement;
  type TypeChecker = TsMorph.ts.TypeChecker;
  type VariableDeclarationList = TsMorph.ts.VariableDeclarationList;
  type WhileStatement = TsMorph.ts.WhileStatement;
}
