import type { Expressions } from "./gen-expressions.js";
import type { Program, Scope, Var } from "./gen-context.js";

/**
 * Iteration as JavaScript does it: for...of over an array the body changes (push, element
 * writes, pop, unshift, splice), over a string (code points), and push/unshift of spread arrays.
 * `block` writes a nested block in a scope.
 */
export class Iteration {
  constructor(
    private readonly p: Program,
    private readonly e: Expressions,
    private readonly block: (s: Scope, indent: string) => string,
  ) {}

  /** A fresh array walked by a for...of whose body changes it; growth is bounded so the loop ends. */
  changingForOf(s: Scope): string {
    const c = this.p.c;
    const a: Var = { name: this.p.fresh("a"), type: "strs", mutable: false, fixed: true };
    const x: Var = { name: this.p.fresh("x"), type: "str", mutable: false };
    const inner: Scope = { ...s, vars: [...s.vars, a, x], loop: "for" };
    const value = this.e.str(s, "email");
    const change = c.weighted<string>([
      [3, true, () => `if (${a.name}.length < ${2 + c.int(3)}) ${a.name}.push(${value});`],
      [2, true, () => `${a.name}[${c.int(5)}] = ${value};`], // past the end: the loop walks the holes as undefined
      [1, true, () => `${a.name}.pop();`],
      [1, true, () => `if (${a.name}.length < 4) ${a.name}.unshift(${value});`],
      [1, true, () => `${a.name}.splice(0, 1);`],
    ]);
    const body = this.block(inner, "  ");
    const lines = c.chance(50) ? [`  ${change}`, body] : [body, `  ${change}`];
    return `const ${a.name}: string[] = [...${this.e.strs(s)}];\nfor (const ${x.name} of ${a.name}) {\n${lines.join("\n")}\n}`;
  }

  /** for...of over a string: one iteration per code point. */
  stringForOf(s: Scope): string {
    const ch: Var = { name: this.p.fresh("ch"), type: "str", mutable: false };
    return `for (const ${ch.name} of (${this.e.str(s, "text")}).slice(0, 4)) {\n${this.block({ ...s, vars: [...s.vars, ch], loop: "for" }, "  ")}\n}`;
  }

  /** push or unshift of (a slice of) a spread array, possibly the array itself, under a length bound (callbacks over the array must not grow it geometrically). */
  spreadPush(s: Scope): string {
    const v = this.p.c.item(s.vars.filter((x) => x.type === "strs" && x.fixed !== true));
    const method = this.p.c.item(["push", "unshift"]);
    return `if (${v.name}.length < 8) ${v.name}.${method}(...(${this.e.strs(s)}).slice(0, 2));`;
  }
}
