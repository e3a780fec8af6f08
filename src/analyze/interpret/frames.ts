import type { ts } from "../compile/typescript.js";
import { MAX_CALL_DEPTH } from "../limits.js";

interface Frame {
  fn: ts.Node;
  escaped: boolean;
}

/**
 * The stack of functions being interpreted: it cuts recursion and tells whether a call runs inside a function that
 * escaped.
 */
export class Frames {
  readonly #stack: Frame[] = [];

  isOnStack(fn: ts.Node, escaped?: boolean): boolean {
    return this.#stack.some((f) => f.fn === fn && (escaped === undefined || f.escaped === escaped));
  }

  within<T>(fn: ts.Node, escaped: boolean, body: () => T): T {
    this.#stack.push({ fn, escaped });
    try {
      return body();
    } finally {
      this.#stack.pop();
    }
  }

  tooDeep(): boolean {
    return this.#stack.length >= MAX_CALL_DEPTH;
  }

  /** Whether any function being interpreted escaped: what it calls may run at any later time. */
  insideEscaped(): boolean {
    return this.#stack.some((f) => f.escaped);
  }
}
