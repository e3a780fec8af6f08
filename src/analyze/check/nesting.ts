import { ts } from "../compile/typescript.js";
import type { Diagnostic } from "../../model/index.js";
import { diagnosticAt } from "../diagnostic.js";
import { MAX_NESTING } from "../limits.js";

const message = `is nested more than ${MAX_NESTING} levels deep, the limit of the analysis; split it up`;

/** The first node nested deeper than MAX_NESTING, as a refusal; measured without recursion. */
export function checkNesting(file: ts.SourceFile): Diagnostic | undefined {
  const stack: [ts.Node, number][] = [[file, 0]];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [node, depth] = top;
    if (depth > MAX_NESTING) return diagnosticAt(file, node, "unsupported", `the program ${message}`, "deep nesting");
    ts.forEachChild(node, (child) => {
      stack.push([child, depth + 1]);
    });
  }
  return undefined;
}

/** A refusal for a program the parser itself cannot nest deeply enough to read. */
export function parserTooDeep(): Diagnostic {
  return {
    severity: "error",
    code: "unsupported",
    message: `the program ${message}`,
    line: 1,
    column: 1,
    construct: "deep nesting",
  };
}
