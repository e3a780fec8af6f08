// Biome formats code to 120 columns but leaves comments as written: a line of src/ that holds a
// comment, alone or after code, is held to the same width here.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript6";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/model/paths.js";

const WIDTH = 120; // biome.jsonc's formatter.lineWidth

/** Lines of `text` past WIDTH that hold some of a comment, found by the parser (not `//` inside a string). */
function wideCommentLines(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lines = new Set<number>();
  const visit = (node: ts.Node): void => {
    for (const range of [
      ...(ts.getLeadingCommentRanges(text, node.getFullStart()) ?? []),
      ...(ts.getTrailingCommentRanges(text, node.getEnd()) ?? []),
    ]) {
      const first = source.getLineAndCharacterOfPosition(range.pos).line;
      const last = source.getLineAndCharacterOfPosition(range.end).line;
      for (let line = first; line <= last; line++) lines.add(line);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  visit(source.endOfFileToken);
  const all = text.split("\n");
  return [...lines]
    .filter((line) => all[line]!.length > WIDTH)
    .sort((a, b) => a - b)
    .map((line) => `${file}:${line + 1}`);
}

describe("comment lines in src/", () => {
  it(`are at most ${WIDTH} columns, as the code is`, () => {
    const biome = readFileSync(join(packageRoot, "biome.jsonc"), "utf8");
    expect(biome).toMatch(new RegExp(`"lineWidth": ${WIDTH}\\b`));
    const files = readdirSync(join(packageRoot, "src"), { recursive: true, encoding: "utf8" }).filter((f) =>
      f.endsWith(".ts"),
    );
    expect(files.length).toBeGreaterThan(100);
    const wide = files.flatMap((f) => wideCommentLines(`src/${f}`, readFileSync(join(packageRoot, "src", f), "utf8")));
    expect(wide).toEqual([]);
  });

  it("the scan finds wide comments alone, in a block and after code; not wide code or // in a string", () => {
    const long = "x".repeat(WIDTH);
    const text = [
      `// ${long}`,
      "/**",
      ` * ${long}`,
      " */",
      `const a = 1; // ${long}`,
      `const s = "${long}";`,
      `const url = "http://${long}";`,
      "",
    ].join("\n");
    expect(wideCommentLines("a.ts", text)).toEqual(["a.ts:1", "a.ts:3", "a.ts:5"]);
  });
});
