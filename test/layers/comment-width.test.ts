// Biome formats code to 120 columns but leaves comments as written: a comment line in src/ is
// held to the same width here.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/model/paths.js";

const WIDTH = 120; // biome.jsonc's formatter.lineWidth

/** Lines of `text` that hold only a comment (`//`, or a block comment's lines) and run past WIDTH. */
function wideCommentLines(file: string, text: string): string[] {
  return text
    .split("\n")
    .flatMap((line, i) => (line.length > WIDTH && /^\s*(\/\/|\/\*|\*)/.test(line) ? [`${file}:${i + 1}`] : []));
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

  it("the scan finds a wide // line and a wide block-comment line, not wide code", () => {
    const long = "x".repeat(WIDTH);
    const text = [`// ${long}`, `/**`, ` * ${long}`, ` */`, `const s = "${long}";`].join("\n");
    expect(wideCommentLines("a.ts", text)).toEqual(["a.ts:1", "a.ts:3"]);
  });
});
