// Every thread runs a module of src/ that tsc and the linter check: none is started from code
// kept in a string (`eval: true`), and each is started through threadModule, which finds its
// module in dist/ and in src/.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/model/paths.js";

const SRC = join(packageRoot, "src");

/** `text` without its comments (which may name what the code must not do). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
}

const sources = readdirSync(SRC, { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile() && e.name.endsWith(".ts"))
  .map((e) => ({ file: join(e.parentPath, e.name), text: code(readFileSync(join(e.parentPath, e.name), "utf8")) }));

/** The project's own code outside src/ too: benchmarks, scripts, examples, trusted code. */
const everyScript = ["src", "bench", "scripts", "examples", "trusted"].flatMap((folder) =>
  readdirSync(join(packageRoot, folder), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|mjs|js)$/.test(e.name) && !join(e.parentPath, e.name).includes("node_modules"))
    .map((e) => ({ file: join(e.parentPath, e.name), text: code(readFileSync(join(e.parentPath, e.name), "utf8")) })),
);

/** What `text` starts as a thread with: the text after each `new Worker(`. */
const workerStarts = (text: string): string[] => text.split(/\bnew Worker\(/).slice(1);

describe("threads", () => {
  it("the scan reads the source tree", () => {
    expect(sources.length).toBeGreaterThan(100);
    expect(sources.filter((s) => workerStarts(s.text).length > 0).length).toBeGreaterThanOrEqual(5);
  });

  it("no thread is started with code kept in a string, in src/ or anywhere else the project runs", () => {
    expect(everyScript.length).toBeGreaterThan(sources.length);
    const evaluated = everyScript
      .filter((s) => /\beval:\s*true\b/.test(s.text))
      .map((s) => relative(packageRoot, s.file));
    expect(evaluated).toEqual([]);
  });

  it("each thread starts from its module through threadModule, and that module is there", () => {
    for (const { file, text } of sources) {
      for (const start of workerStarts(text)) {
        const call = /^\.\.\.threadModule\(import\.meta\.url, "(\.\/[\w-]+)",/.exec(start);
        expect({ file: relative(packageRoot, file), start: start.slice(0, 60), call: call !== null }).toMatchObject({
          call: true,
        });
        expect(existsSync(join(dirname(file), `${call![1]}.ts`))).toBe(true);
      }
    }
  });

  it("the scan catches a string source and an eval flag", () => {
    const starts = workerStarts('new Worker(`require("x")`, { eval: true })');
    expect(starts).toHaveLength(1);
    expect(/^\.\.\.threadModule\(/.test(starts[0]!)).toBe(false);
  });
});
