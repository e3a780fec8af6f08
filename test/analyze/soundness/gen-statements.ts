import { CALLABLE, type TrustedFunction } from "./alphabet.js";
import { Expressions } from "./gen-expressions.js";
import { Functions } from "./gen-functions.js";
import { Iteration } from "./gen-iteration.js";
import { TS_TYPE, type Program, type Scope, type Type, type Var } from "./gen-context.js";

const MAX_STATEMENTS = 40;
const MAX_BLOCK_DEPTH = 3;
const MAX_HELPERS = 3;

/**
 * Statements of the supported subset: declarations, reassignment, in-place mutation, branches,
 * bounded and unbounded loops, early return, throw and try/catch/finally, trusted calls (awaited,
 * fire-and-forget, in Promise.all), local helpers and closures that write outer variables.
 */
export class Statements {
  readonly e: Expressions;
  private readonly iteration: Iteration;
  private readonly functions: Functions;

  constructor(private readonly p: Program) {
    this.e = new Expressions(p);
    this.iteration = new Iteration(p, this.e, (s, indent) => this.block(s, indent));
    this.functions = new Functions(p, this.e, {
      block: (s, indent) => this.block(s, indent),
      trustedCall: (s) => this.trustedCall(s),
    });
  }

  /** A block's statements, one per line, at `indent`. */
  block(scope: Scope, indent: string): string {
    const lines: string[] = [];
    const inner: Scope = { ...scope, vars: [...scope.vars], depth: scope.depth + 1 };
    while (this.p.statements < MAX_STATEMENTS && this.p.c.chance(inner.depth === 1 ? 85 : 60)) {
      this.p.statements++;
      lines.push(
        ...this.statement(inner)
          .split("\n")
          .map((l) => indent + l),
      );
    }
    return lines.join("\n");
  }

  private statement(s: Scope): string {
    const c = this.p.c;
    const nest = s.depth <= MAX_BLOCK_DEPTH;
    const inLoop = s.loop !== "none";
    return c.weighted<string>([
      [4, true, () => this.declare(s)],
      [5, true, () => (s.async ? this.trustedStatement(s) : `void ${this.trustedCall(s)};`)],
      [
        2,
        this.p.has(s, "str", true) || this.p.has(s, "strs", true) || this.p.has(s, "num", true),
        () => this.assign(s),
      ],
      [
        1,
        this.growable(s),
        () => {
          const v = this.p.c.item(s.vars.filter((x) => x.type === "strs" && x.fixed !== true));
          const method = this.p.c.chance(80) ? `.push` : `["push"]`;
          return `${v.name}${method}(${this.e.str(this.without(s, v), "email")});`;
        },
      ],
      [1, this.growable(s), () => this.iteration.spreadPush(s)],
      [1, this.p.has(s, "strs"), () => this.elementWrite(s)],
      [
        2,
        nest,
        () =>
          `if (${this.e.bool(s)}) {\n${this.block(s, "  ")}\n}${c.chance(50) ? ` else {\n${this.block(s, "  ")}\n}` : ""}`,
      ],
      [2, nest, () => this.forOf(s)],
      [1, nest, () => this.iteration.changingForOf(s)],
      [1, nest, () => this.iteration.stringForOf(s)],
      [1, nest, () => this.iteration.collectionForOf(s)],
      [1, nest, () => this.forCount(s)],
      [1, nest, () => this.whileCount(s)],
      [1, nest, () => this.doWhileCount(s)],
      [1, true, () => this.destructure(s)],
      [1, nest, () => this.someWithEffects(s)],
      [1, s.async && nest, () => this.recursive(s)],
      [1, this.p.has(s, "res"), () => `${this.p.pickVar(s, "res")!.name}.body = ${this.e.str(s, "text")};`],
      [1, nest, () => this.tryStatement(s)],
      [1, true, () => `if (${this.e.bool(s)}) return;`],
      [1, s.noThrow !== true, () => `if (${this.e.bool(s)}) throw new Error("stop");`],
      [1, inLoop, () => `if (${this.e.bool(s)}) ${s.loop === "for" && c.chance(50) ? "continue" : "break"};`],
      [2, s.async && nest, () => this.helperCall(s)],
      [1, s.async && nest, () => this.closure(s)],
      [1, s.async, () => this.promiseAll(s)],
      [1, s.async && nest, () => this.mapAll(s)],
      [1, s.async, () => this.argumentObject(s)],
      [1, nest, () => this.forEach(s)],
      [1, true, () => this.functions.defaultWithEffect(s)],
      [1, true, () => this.functions.recursiveDefault(s)],
      [1, nest, () => this.functions.namedRecursion(s)],
      [1, s.async && nest, () => this.functions.thenable(s)],
      [1, true, () => this.functions.optionalCall(s)],
      [1, nest && this.p.has(s, "strs"), () => this.functions.sortWithEffects(s)],
      [1, s.async && nest, () => this.functions.promiseCallbacks(s)],
    ]);
  }

  /** Some array in scope may be grown (a for...of's own array only under a bound). */
  private growable(s: Scope): boolean {
    return s.vars.some((x) => x.type === "strs" && x.fixed !== true);
  }

  /**
   * try/catch/finally: the catch block may write and rethrow; the finally block may end with
   * break, continue or return, which swallow an exception or replace a return.
   */
  private tryStatement(s: Scope): string {
    const c = this.p.c;
    const e = this.p.fresh("e");
    const rethrow = s.noThrow !== true && c.chance(40) ? `\n  if (${this.e.bool(s)}) throw ${e};` : "";
    const handler = c.chance(70) ? ` catch (${e}) {\n${this.block(s, "  ")}${rethrow}\n}` : "";
    const jumps = ["return", ...(s.loop === "none" ? [] : ["break"]), ...(s.loop === "for" ? ["continue"] : [])];
    const jump = c.chance(40) ? `\n  if (${this.e.bool(s)}) ${c.item(jumps)};` : "";
    const final = handler === "" || c.chance(40) ? ` finally {\n${this.block(s, "  ")}${jump}\n}` : "";
    return `try {\n${this.block(s, "  ")}\n}${handler}${final}`;
  }

  private declare(s: Scope): string {
    const type = this.p.c.item<Type>(["str", "str", "strs", "num", "bool"]);
    const mutable = this.p.c.chance(50);
    const init = this.e.of(type, s, "email");
    const v: Var = { name: this.p.fresh("v"), type, mutable };
    s.vars.push(v);
    return `${mutable ? "let" : "const"} ${v.name}: ${TS_TYPE[type]} = ${init};`;
  }

  private assign(s: Scope): string {
    const c = this.p.c;
    const candidates = s.vars.filter((v) => v.mutable && v.type !== "bool" && v.type !== "res");
    const v = c.item(candidates);
    const rhs = this.without(s, v);
    if (v.type === "num") return c.chance(50) ? `${v.name}++;` : `${v.name} = ${this.e.num(rhs)};`;
    if (v.type === "str" && c.chance(30)) return `${v.name} += ${this.e.str(rhs, "text")};`;
    return `${v.name} = ${this.e.of(v.type, rhs, "email")};`;
  }

  /** The scope for a value written into `v`: without `v` itself while "doubling" is left out (see Feature). */
  private without(s: Scope, v: Var): Scope {
    return this.p.on("doubling") ? s : { ...s, vars: s.vars.filter((x) => x !== v) };
  }

  /** `{ input: value, ... }` for a trusted function; an optional input is sometimes left out. */
  private argsOf(fn: TrustedFunction, s: Scope): { text: string; inputs: TrustedFunction["inputs"] } {
    const inputs = fn.inputs.filter((input) => !input.optional || this.p.c.chance(60));
    const parts = inputs.map(
      (input) => `${input.name}: ${input.type === "strs" ? this.e.strs(s) : this.e.str(s, input.flavor)}`,
    );
    return { text: `{ ${parts.join(", ")} }`, inputs };
  }

  trustedCall(s: Scope): string {
    const fn = this.p.c.item(CALLABLE);
    return `${this.p.use(`trusted/${fn.connector}`, fn.name)}(${this.argsOf(fn, s).text})`;
  }

  private trustedStatement(s: Scope): string {
    const c = this.p.c;
    if (c.chance(35)) {
      const v: Var = { name: this.p.fresh("r"), type: "res", mutable: false };
      // Widened from the typed result: expressions read any field of any result (and write body) to test the analysis, not the types.
      const line = `const ${v.name}: Record<string, unknown> = await ${this.trustedCall(s)};`;
      s.vars.push(v);
      return line;
    }
    return c.chance(85) ? `await ${this.trustedCall(s)};` : `void ${this.trustedCall(s)};`;
  }

  /** Over a snapshot, so that the body cannot grow what it walks and loop for ever. */
  private forOf(s: Scope): string {
    const x: Var = { name: this.p.fresh("x"), type: "str", mutable: false };
    const over = this.e.strs(s);
    const snapshot = over.startsWith("[") || over.startsWith("([]") ? over : `[...${over}]`;
    return `for (const ${x.name} of ${snapshot}) {\n${this.block({ ...s, vars: [...s.vars, x], loop: "for" }, "  ")}\n}`;
  }

  /** Up to a constant, or up to a length computed once before the loop (unknown when it comes from a read). */
  private forCount(s: Scope): string {
    const i: Var = { name: this.p.fresh("i"), type: "num", mutable: false };
    const n = this.p.fresh("n");
    // At most 5: nested loops over long read texts would multiply into thousands of calls.
    const before = this.p.c.chance(70) ? "" : `const ${n}: number = Math.min((${this.e.str(s, "text")}).length, 5);\n`;
    const bound = before === "" ? String(this.p.c.int(4)) : n;
    return `${before}for (let ${i.name} = 0; ${i.name} < ${bound}; ${i.name}++) {\n${this.block({ ...s, vars: [...s.vars, i], loop: "for" }, "  ")}\n}`;
  }

  private whileCount(s: Scope): string {
    const k: Var = { name: this.p.fresh("k"), type: "num", mutable: false };
    const body = this.block({ ...s, vars: [...s.vars, k], loop: "while" }, "  ");
    return `let ${k.name} = 0;\nwhile (${k.name} < ${this.p.c.int(4)}) {\n${body}\n  ${k.name}++;\n}`;
  }

  private doWhileCount(s: Scope): string {
    const k = this.p.fresh("k");
    const body = this.block({ ...s, loop: "while" }, "  ");
    return `let ${k} = 0;\ndo {\n${body}\n  ${k}++;\n} while (${k} < ${this.p.c.int(4)});`;
  }

  /** Array destructuring with defaults (an element may be missing), of an array or of a string (its code points). */
  private destructure(s: Scope): string {
    const a: Var = { name: this.p.fresh("v"), type: "str", mutable: false };
    const b: Var = { name: this.p.fresh("v"), type: "str", mutable: false };
    const source = this.p.c.chance(70) ? this.e.strs(s) : this.e.str(s, "text");
    const line = `const [${a.name} = ${this.e.str(s, "email")}, ${b.name} = "z@x.com"] = ${source};`;
    s.vars.push(a, b);
    return line;
  }

  /** A synchronous predicate with effects; some/every/find stop early, so it may run fewer times. */
  private someWithEffects(s: Scope): string {
    const x: Var = { name: this.p.fresh("x"), type: "str", mutable: false };
    const v: Var = { name: this.p.fresh("v"), type: "bool", mutable: false };
    const body = this.block({ ...s, vars: [...s.vars, x], loop: "none", async: false }, "  ");
    const method = this.p.c.item(["some", "every", "find"]);
    const result = method === "find" ? ` !== undefined` : "";
    const over = this.e.strs(s);
    s.vars.push(v);
    return `const ${v.name}: boolean = (${over}).${method}((${x.name}) => {\n${body}\n  return (${x.name} as string) === ${JSON.stringify(this.p.c.item(["a@x.com", "c@y.org"]))};\n})${result};`;
  }

  /** A recursive local helper with a decreasing counter: a bounded number of calls the analysis cannot unroll. */
  private recursive(s: Scope): string {
    const name = this.p.fresh("g");
    const n: Var = { name: this.p.fresh("n"), type: "num", mutable: false };
    const q: Var = { name: this.p.fresh("q"), type: "str", mutable: false };
    const body = this.block({ vars: [n, q], loop: "none", async: true, depth: 1, noThrow: s.noThrow }, "  ");
    const fn = `async function ${name}(${n.name}: number, ${q.name}: string): Promise<void> {\n  if (${n.name} <= 0) return;\n${body}\n  await ${name}(${n.name} - 1, ${q.name});\n}`;
    return `${fn}\nawait ${name}(${this.p.c.int(4)}, ${this.e.str(s, "email")});`;
  }

  /** A call of a top-level async helper (written now, or one written before: never recursive). */
  private helperCall(s: Scope): string {
    const c = this.p.c;
    let helper =
      this.p.asyncHelpers.length > 0 && (this.p.asyncHelpers.length >= MAX_HELPERS || c.chance(50))
        ? c.item(this.p.asyncHelpers)
        : undefined;
    if (helper === undefined) {
      if (c.chance(30) && this.p.pureHelpers.length < 2) this.writePureHelper();
      const params = [c.item<Type>(["str", "strs"]), c.item<Type>(["str", "strs", "num"])];
      const name = this.p.fresh("h");
      const vars = params.map((type, i) => ({ name: `p${i}`, type, mutable: true }));
      const body = this.block(
        { vars, loop: "none", async: true, depth: 0, noThrow: !this.p.on("detached-throw") },
        "  ",
      );
      this.p.helpers.push(
        `async function ${name}(${vars.map((v) => `${v.name}: ${TS_TYPE[v.type]}`).join(", ")}): Promise<void> {\n${body}\n}`,
      );
      helper = { name, params };
      this.p.asyncHelpers.push(helper);
    }
    return `await ${helper.name}(${helper.params.map((t) => this.e.of(t, s, "email")).join(", ")});`;
  }

  private writePureHelper(): void {
    const name = this.p.fresh("f");
    const scope: Scope = {
      vars: [{ name: "a", type: "str", mutable: false }],
      loop: "none",
      async: false,
      depth: MAX_BLOCK_DEPTH,
    };
    this.p.helpers.push(
      `function ${name}(a: string): string {\n  if (${this.e.bool(scope)}) return ${this.e.str(scope, "email")};\n  return ${this.e.str(scope, "email")};\n}`,
    );
    this.p.pureHelpers.push(name);
  }

  /** An async arrow that sees (and may write) the variables around it, called once or twice. */
  private closure(s: Scope): string {
    const name = this.p.fresh("c");
    const param: Var = { name: this.p.fresh("q"), type: "str", mutable: false };
    const body = this.block({ ...s, vars: [...s.vars, param], loop: "none" }, "  ");
    const calls = Array.from({ length: 1 + this.p.c.int(2) }, () => `await ${name}(${this.e.str(s, "email")});`);
    return `const ${name} = async (${param.name}: string): Promise<void> => {\n${body}\n};\n${calls.join("\n")}`;
  }

  /** Trusted calls and helper calls (which run detached: a helper that throws does not stop the others). */
  private promiseAll(s: Scope): string {
    const call = (): string =>
      this.p.asyncHelpers.length > 0 && this.p.c.chance(40) ? this.detachedHelper(s) : this.trustedCall(s);
    const calls = Array.from({ length: 1 + this.p.c.int(3) }, call);
    return `await Promise.all([${calls.join(", ")}]);`;
  }

  private detachedHelper(s: Scope): string {
    const helper = this.p.c.item(this.p.asyncHelpers);
    return `${helper.name}(${helper.params.map((t) => this.e.of(t, s, "email")).join(", ")})`;
  }

  /**
   * `a[k] = v`, with keys whose evaluation has effects: `a[k++]`, `a[k] = (k = n, v)`, `a[k++] += v`;
   * a key past the length leaves holes, which a trusted call refuses and `Array.from` or a spread
   * reads as undefined.
   */
  private elementWrite(s: Scope): string {
    const c = this.p.c;
    const array = this.p.pickVar(s, "strs")!;
    const a = array.name;
    // A fresh counter that only this statement writes, so that the allowlist sees a number key.
    const k = this.p.fresh("k");
    const value = this.e.str(this.without(s, array), "email");
    const write = c.weighted<string>([
      [2, true, () => `${a}[${k}] = ${value};`],
      [1, true, () => `${a}[${k}++] = ${value};`],
      [1, this.p.on("key-order"), () => `${a}[${k}] = (${k} = ${c.int(3)}, ${value});`],
      [1, true, () => `${a}[${k}++] += ${value};`],
    ]);
    return `let ${k} = ${c.int(5)};\n${write}`;
  }

  private mapAll(s: Scope): string {
    const x: Var = { name: this.p.fresh("x"), type: "str", mutable: false };
    const body = this.block(
      { ...s, vars: [...s.vars, x], loop: "none", noThrow: s.noThrow === true || !this.p.on("detached-throw") },
      "  ",
    );
    return `await Promise.all((${this.e.strs(s)}).map(async (${x.name}) => {\n${body}\n}));`;
  }

  /** A synchronous callback: it may write outer variables and fire trusted calls without waiting. */
  private forEach(s: Scope): string {
    const x: Var = { name: this.p.fresh("x"), type: "str", mutable: false };
    const body = this.block({ ...s, vars: [...s.vars, x], loop: "none", async: false }, "  ");
    return `(${this.e.strs(s)}).forEach((${x.name}) => {\n${body}\n});`;
  }

  /** The argument object built first and changed in place before the call. */
  private argumentObject(s: Scope): string {
    const c = this.p.c;
    const fn = c.item(CALLABLE.filter((f) => f.inputs.length > 1));
    const m = this.p.fresh("m");
    const args = this.argsOf(fn, s);
    const lines = [`const ${m} = ${args.text};`];
    const input = c.item(args.inputs);
    if (c.chance(60))
      lines.push(
        input.type === "strs"
          ? `${m}.${input.name}.push(${this.e.str(s, "email")});`
          : `if (${this.e.bool(s)}) ${m}.${input.name} = ${this.e.str(s, input.flavor)};`,
      );
    lines.push(`await ${this.p.use(`trusted/${fn.connector}`, fn.name)}(${m});`);
    return lines.join("\n");
  }
}
