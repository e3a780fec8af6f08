import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { runInNewContext } from "node:vm";
import ts from "typescript6";
import { describe, expect, it } from "vitest";
import { callText } from "../../src/model/index.js";
import { packageRoot } from "../../src/model/paths.js";

// The folders whose code runs in another realm (a QuickJS context, the approval UI's page).
const FOLDERS = ["src/sandbox", "src/authority/ui"];

function sourceFiles(folder: string): string[] {
  return readdirSync(join(packageRoot, folder), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .map((name) => join(folder, name));
}

/** Template strings whose own text runs over lines and reads as JavaScript: a realm's code kept as text. */
function codeInTemplates(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(packageRoot, file), "utf8"), ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) {
      // Only the literal parts as written (a line break in the source, not a \n escape): code in a substitution is the host's own.
      const parts = ts.isTemplateExpression(node)
        ? [node.head, ...node.templateSpans.map((span) => span.literal)]
        : [node];
      const text = parts.map((part) => part.rawText ?? "").join("");
      if (text.includes("\n") && /=>|\bfunction\b|\b(const|let|var) [\w${]/.test(text))
        found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("code for another realm", () => {
  it("is written as typed functions, never kept in a template string", () => {
    const files = FOLDERS.flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(10);
    expect(files.flatMap(codeInTemplates)).toEqual([]);
  });

  it("the scan finds code kept in a template string", () => {
    const file = "test/sandbox/code-in-strings.test.ts";
    const kept = `(() => {
  const x = 1;
})()`;
    expect(kept).toContain("const x");
    const line =
      readFileSync(join(packageRoot, file), "utf8")
        .split("\n")
        .findIndex((l) => l.includes("const kept = `")) + 1;
    expect(codeInTemplates(file)).toContain(`${file}:${line}`);
  });
});

describe("callText", () => {
  it("calls the function's own text with the argument texts", () => {
    const add = (a: number, b: { n: number }): number => a + b.n;
    expect(runInNewContext(callText(add, "1", JSON.stringify({ n: 2 })))).toBe(3);
  });

  it("gives a text with a name-keeping loader's __name calls the helper they need, naming as the engine does", () => {
    // A function as esbuild's keepNames writes it: the realm has no __name of its own.
    const kept = new Function(
      `return function outer(x) { const inner = __name(() => x, "inner"); return [inner.name, inner(), Object.getOwnPropertyDescriptor(inner, "name")]; }`,
    )() as (x: number) => unknown;
    expect(() => runInNewContext(`(${kept.toString()})(1)`)).toThrow(/__name is not defined/);
    const [name, value, descriptor] = runInNewContext(callText(kept, "7")) as [string, number, PropertyDescriptor];
    expect([name, value]).toEqual(["inner", 7]);
    expect({ ...descriptor }).toEqual({ ...Object.getOwnPropertyDescriptor(() => 0, "name"), value: "inner" });
  });
});

// Each function whose text another realm runs, by the module that holds it.
const REALM_FUNCTIONS: [string, string][] = [
  ["src/sandbox/realm-serializer.ts", "makeSerializer"],
  ["src/sandbox/realm-bridge.ts", "makeBridge"],
  ["src/sandbox/realm-program-module.ts", "programModule"],
  ["src/sandbox/realm-trusted-modules.ts", "connectorModule"],
  ["src/sandbox/realm-trusted-modules.ts", "contractsModule"],
  ["src/environment/realm-hardening.ts", "hardenRealm"],
  ["src/authority/ui/live-script.ts", "liveScript"],
  ["src/authority/ui/layout.ts", "span"],
];

/** Each function's text as plain Node loads the built module (vitest would compile it again). */
function builtTexts(): string[] {
  const script = `const texts = [];
for (const [file, name] of ${JSON.stringify(REALM_FUNCTIONS)}) texts.push((await import(new URL(file.replace(/\\.ts$/, ".js"), ${JSON.stringify(pathToFileURL(join(packageRoot, "dist", "/")).href)})))[name].toString());
process.stdout.write(JSON.stringify(texts));`;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  expect(child.stderr).toBe("");
  return JSON.parse(child.stdout) as string[];
}

describe.skipIf(!existsSync(join(packageRoot, "dist", "src")))("built, the text another realm runs", () => {
  it("of each function is the typed source without its types, as TypeScript emits it", () => {
    const texts = builtTexts();
    REALM_FUNCTIONS.forEach(([file, name], i) => {
      const text = texts[i]!;
      expect(text).toMatch(new RegExp(`^function ${name}\\(`));
      expect(text).not.toContain("__name");
      const emitted = ts.transpileModule(readFileSync(join(packageRoot, file), "utf8"), {
        compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
      }).outputText;
      expect(emitted, `${file} ${name}`).toContain(`export ${text}`);
    });
  });
});
