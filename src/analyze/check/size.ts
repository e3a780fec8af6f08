import { ts } from "../compile/typescript.js";
import type { Diagnostic } from "../../model/index.js";
import { diagnosticAt } from "../diagnostic.js";
import { MAX_FUNCTION_NODES } from "../limits.js";

const isFunction = (node: ts.Node): boolean =>
  ts.isFunctionLike(node) && !ts.isTypeNode(node) && !ts.isMethodSignature(node);

/** The first function (or the top level) larger than MAX_FUNCTION_NODES, as a refusal; measured without recursion. */
export function checkFunctionSize(file: ts.SourceFile): Diagnostic | undefined {
  const sizes = new Map<ts.Node, number>([[file, 0]]);
  const stack: [ts.Node, ts.Node][] = [[file, file]]; // a node and the function it counts towards
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [node, owner] = top;
    const size = sizes.get(owner)! + 1;
    sizes.set(owner, size);
    if (size > MAX_FUNCTION_NODES) {
      const what = owner === file ? "the program's top level" : "this function";
      return diagnosticAt(
        file,
        owner === file ? node : owner,
        "analysis_budget_exceeded",
        `${what} holds more than ${MAX_FUNCTION_NODES} syntax nodes, more than the analysis checks at once: split it into smaller functions`,
      );
    }
    ts.forEachChild(node, (child) => {
      if (isFunction(child)) sizes.set(child, 0);
      stack.push([child, isFunction(child) ? child : owner]);
    });
  }
  return undefined;
}
