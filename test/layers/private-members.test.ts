// One kind of private member in src/: ECMAScript's `#name`, which the engine enforces, never
// TypeScript's `private` or `protected`, which only the type checker sees. A constructor is the
// exception: `private constructor` keeps `new` for a class's own factory, and has no `#` form.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript6";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/model/paths.js";

/** Where a class member or parameter property in `text` carries `private` or `protected`. */
function keywordPrivates(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isClassElement(node) || ts.isParameter(node)) && !ts.isConstructorDeclaration(node)) {
      const keyword = ts
        .getModifiers(node as ts.HasModifiers)
        ?.find((m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword);
      if (keyword !== undefined)
        found.push(`${file}:${source.getLineAndCharacterOfPosition(keyword.getStart(source)).line + 1}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const sources = readdirSync(join(packageRoot, "src"), { recursive: true, encoding: "utf8" })
  .filter((name) => name.endsWith(".ts"))
  .map((name) => relative(packageRoot, join(packageRoot, "src", name)));

describe("private members in src/", () => {
  it("are all #private: no member carries TypeScript's private or protected", () => {
    expect(sources.length).toBeGreaterThan(100);
    expect(sources.flatMap((file) => keywordPrivates(file, readFileSync(join(packageRoot, file), "utf8")))).toEqual([]);
  });

  it("the scan finds the keyword on fields, methods, accessors and parameter properties, not in text", () => {
    const text = [
      "class A {",
      "  private a = 1;",
      "  protected b(): void {}",
      "  private get c(): number { return 1; }",
      "  constructor(private readonly d: number) {}",
      "  #e = 'private f = 1';",
      "  // private g",
      "}",
      "class B { private constructor() {} }",
    ].join("\n");
    expect(keywordPrivates("x.ts", text)).toEqual(["x.ts:2", "x.ts:3", "x.ts:4", "x.ts:5"]);
  });
});
