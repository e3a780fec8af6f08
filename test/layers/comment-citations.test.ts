// Comments in src/ cite what a reader can open: a document in this repository (a section of
// docs/architecture.md that exists), never an issue number or a design document kept elsewhere.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript6";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/model/paths.js";

const ARCHITECTURE = "docs/architecture.md";
const SECTIONS = new Set(
  [...readFileSync(join(packageRoot, ARCHITECTURE), "utf8").matchAll(/^## (\d+)\. /gm)].map((m) => m[1]!),
);

/** Every .ts file under `dir`. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

/** The comments of a TypeScript file, found by its parser (not inside strings, templates or regular expressions), as flowing text. */
function commentsOf(file: string): { line: number; text: string }[] {
  const text = readFileSync(file, "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const seen = new Map<number, ts.CommentRange>();
  const visit = (node: ts.Node): void => {
    for (const range of [
      ...(ts.getLeadingCommentRanges(text, node.getFullStart()) ?? []),
      ...(ts.getTrailingCommentRanges(text, node.getEnd()) ?? []),
    ])
      seen.set(range.pos, range);
    ts.forEachChild(node, visit);
  };
  visit(source);
  visit(source.endOfFileToken);
  return [...seen.values()].map((range) => ({
    line: source.getLineAndCharacterOfPosition(range.pos).line + 1,
    text: text
      .slice(range.pos, range.end)
      .replace(/^\/\*\*?|\*\/$|^\/\//g, "")
      .replace(/\n\s*\*?/g, " ")
      .replace(/\s+/g, " "),
  }));
}

/** What is wrong with what one comment cites: an issue, a design document not here, a file or section that does not exist. */
function citationProblems(comment: string, exists: (path: string) => boolean): string[] {
  const problems: string[] = [];
  for (const m of comment.matchAll(/\b(?:issues?|PR|pull request|bug) ?#?\d+\b|(?:^|[\s(])#\d+\b/gi))
    problems.push(`cites an issue: ${m[0].trim()}`);
  for (const m of comment.matchAll(/\bDESIGN\b|\bdesign (?:§|section|doc(?:ument)?)/g))
    problems.push(`cites a design document not in the repository: ${m[0]}`);
  for (const m of comment.matchAll(/(?:[\w.-]+\/)*[\w-]+\.md\b/g))
    if (!exists(m[0])) problems.push(`cites ${m[0]}, which is not in the repository`);
  for (const m of comment.matchAll(/docs\/architecture\.md,? section (\d+)/g))
    if (!SECTIONS.has(m[1]!)) problems.push(`cites section ${m[1]} of ${ARCHITECTURE}, which has none`);
  return problems;
}

const inRepository = (path: string): boolean =>
  existsSync(join(packageRoot, path)) || existsSync(join(packageRoot, "docs", path));

describe("citations in comments", () => {
  it("flags issue numbers, outside design documents and missing files or sections; passes real ones", () => {
    expect(citationProblems(" The rules of an agent action (issue 14): every step ", inRepository)).toEqual([
      "cites an issue: issue 14",
    ]);
    expect(citationProblems(" fixed in #123 ", inRepository)).toEqual(["cites an issue: #123"]);
    expect(citationProblems(" The layering of DESIGN.md section 3 ", inRepository)).toEqual([
      "cites a design document not in the repository: DESIGN",
      "cites DESIGN.md, which is not in the repository",
    ]);
    expect(citationProblems(" as design §4 says ", inRepository)).toEqual([
      "cites a design document not in the repository: design §",
    ]);
    expect(citationProblems(" see docs/architecture.md section 99 ", inRepository)).toEqual([
      "cites section 99 of docs/architecture.md, which has none",
    ]);
    expect(
      citationProblems(" see docs/architecture.md section 8, receipts.md and BENCHMARKS.md ", inRepository),
    ).toEqual([]);
    expect(citationProblems(" colour #1b1f24; issue.message; a #hash ", inRepository)).toEqual([]);
  });

  it("every comment in src/ cites only what is in the repository", () => {
    const comments = sourceFiles(join(packageRoot, "src")).flatMap((file) =>
      commentsOf(file).map((c) => ({ ...c, file: relative(packageRoot, file) })),
    );
    const problems = comments.flatMap(({ file, line, text }) =>
      citationProblems(text, inRepository).map((p) => `${file}:${line}: ${p}`),
    );
    expect(problems).toEqual([]);
    // The scan saw the comments that cite the architecture, wherever their lines break.
    expect(comments.filter((c) => /docs\/architecture\.md,? section \d/.test(c.text)).length).toBeGreaterThan(20);
  });

  it("reads comments, not strings", () => {
    const comments = commentsOf(join(packageRoot, "src", "authority", "ui", "assets.ts"))
      .map((c) => c.text)
      .join("\n");
    expect(comments).not.toContain("#1b1f24"); // a colour in the stylesheet's template literal
  });
});
