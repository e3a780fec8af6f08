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

  /**
   * A Map or Set built, changed (also through a second name), then walked by for...of (the
   * collection, its keys or values) or forEach; the body may add (bounded by the size) or delete
   * as it goes, which JavaScript's iteration sees.
   */
  collectionForOf(s: Scope): string {
    const c = this.p.c;
    const map = c.chance(50);
    const m = this.p.fresh("m");
    const x: Var = { name: this.p.fresh("x"), type: "str", mutable: false };
    const y: Var = { name: this.p.fresh("y"), type: "str", mutable: false };
    const str = (): string => this.e.str(s, "email");
    const lines = [
      map
        ? `const ${m} = new Map<string, string>((${this.e.strs(s)}).map((k) => [k, ${str()}] as [string, string]));`
        : `const ${m} = new Set<string>(${this.e.strs(s)});`,
    ];
    const add = (key: string, value: string): string => (map ? `set(${key}, ${value})` : `add(${key})`);
    for (let i = c.int(3); i > 0; i--) {
      lines.push(
        c.weighted<string>([
          [3, true, () => `${m}.${add(str(), str())};`],
          [1, true, () => `${m}.delete(${str()});`],
          [
            1,
            true,
            () => {
              const alias = this.p.fresh("alias");
              return `const ${alias} = ${m};\n${alias}.${add(str(), str())};`;
            },
          ],
          [1, true, () => `${m}.${add(str(), str())}.${add(str(), str())};`],
          [1, true, () => `if (${this.e.bool(s)}) ${m}.clear();`],
        ]),
      );
    }
    const forEach = !s.async && c.chance(50); // the callback is not async: its body makes no awaited calls
    const inner: Scope = { ...s, vars: [...s.vars, x, ...(map ? [y] : [])], loop: forEach ? "none" : "for" };
    const change = c.weighted<string>([
      [3, true, () => ""],
      [1, true, () => `  if (${m}.size < ${2 + c.int(3)}) ${m}.${add(`${x.name} + "1"`, str())};`],
      [1, true, () => `  ${m}.delete(${c.chance(50) ? x.name : str()});`],
    ]);
    const body = [change, this.block(inner, "  ")].filter((l) => l !== "").join("\n");
    const head = c.weighted<string>([
      [2, true, () => (map ? `for (const [${x.name}, ${y.name}] of ${m})` : `for (const ${x.name} of ${m})`)],
      [1, true, () => `for (const ${x.name} of ${m}.${c.item(["keys()", "values()"])})`],
      [1, map, () => `for (const [${x.name}, ${y.name}] of [...${m}.entries()])`],
    ]);
    const bind =
      map && (head.includes("keys()") || head.includes("values()")) ? `  const ${y.name} = ${x.name};\n` : "";
    if (forEach) {
      return `${lines.join("\n")}\n${m}.forEach((${map ? `${y.name}, ${x.name}` : x.name}) => {\n${body}\n});`;
    }
    return `${lines.join("\n")}\n${head} {\n${bind}${body}\n}`;
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
