import type { Expressions } from "./gen-expressions.js";
import type { Program, Scope, Var } from "./gen-context.js";

/** Writers the function statements need from Statements. */
export interface Writers {
  block(s: Scope, indent: string): string;
  trustedCall(s: Scope): string;
}

/**
 * Code that runs where it is easy to overlook: default parameters with effects on every call
 * path, recursion through a named function expression's own name, then methods run by await,
 * optional calls that skip their arguments, comparators and promise callbacks.
 */
export class Functions {
  constructor(
    private readonly p: Program,
    private readonly e: Expressions,
    private readonly w: Writers,
  ) {}

  /** An arrow whose second parameter's default makes a trusted call, then called in one of several ways. */
  defaultWithEffect(s: Scope): string {
    const c = this.p.c;
    const f = this.p.fresh("f");
    const definition = `const ${f} = (a: string, b: string = (void ${this.w.trustedCall(s)}, ${this.e.str(s, "text")})): string => a + b;`;
    const arg = (): string => this.e.str(s, "email");
    const calls = Array.from({ length: 1 + c.int(2) }, () =>
      c.weighted<string>([
        [2, true, () => `${f}(${arg()});`],
        [1, true, () => `${f}(${arg()}, ${arg()});`],
        [1, true, () => `${f}(...((${this.e.strs(s)}).slice(0, 1) as [string]));`],
        [1, true, () => `[${f}][0]!(${arg()});`],
        [1, true, () => `(${this.e.strs(s)}).forEach((x) => { ${f}(x); });`],
      ]),
    );
    return [definition, ...calls].join("\n");
  }

  /** Recursion whose default parameter makes a trusted call on the recursive calls only. */
  recursiveDefault(s: Scope): string {
    const r = this.p.fresh("r");
    return `const ${r} = (n: number, q: string = (void ${this.w.trustedCall(s)}, "x")): number => (n > 0 ? ${r}(n - 1) : q.length);\n${r}(${this.p.c.int(4)}, "y");`;
  }

  /** A named function expression that calls itself by its own name. */
  namedRecursion(s: Scope): string {
    const g = this.p.fresh("g");
    const self = this.p.fresh("again");
    const n: Var = { name: this.p.fresh("n"), type: "num", mutable: false };
    const body = this.w.block({ ...s, vars: [...s.vars, n], loop: "none", async: false }, "  ");
    return `const ${g} = function ${self}(${n.name}: number): void {\n  if (${n.name} <= 0) return;\n${body}\n  ${self}(${n.name} - 1);\n};\n${g}(${this.p.c.int(4)});`;
  }

  /** `await` of an object with a then method (directly, or through Promise.resolve / Promise.all). */
  thenable(s: Scope): string {
    const c = this.p.c;
    const v: Var = { name: this.p.fresh("v"), type: "str", mutable: false };
    const body = this.w.block({ ...s, loop: "none", async: false }, "  ");
    const t = `{ then: (resolve: (value: string) => void) => {\n${body}\n  resolve(${this.e.str(s, "email")});\n} }`;
    const awaited = c.weighted<string>([
      [2, true, () => `await ${t}`],
      [1, true, () => `await Promise.resolve(${t})`],
      [1, true, () => `(await Promise.all([${t}]))[0]`],
    ]);
    const line = `const ${v.name}: string = ${awaited};`;
    s.vars.push(v);
    return line;
  }

  /** `o?.m(x)`, where o may be undefined: the argument (a trusted call) is not evaluated then. */
  optionalCall(s: Scope): string {
    const o = this.p.fresh("o");
    const arg = s.async ? `await ${this.w.trustedCall(s)}` : `void ${this.w.trustedCall(s)}`;
    return `const ${o}: { m: (x: unknown) => void } | undefined = ${this.e.bool(s)} ? { m: (x: unknown) => {} } : undefined;\n${o}?.m(${arg});`;
  }

  /** A sort comparator with an effect: it runs as often as the engine likes (one call, so nested sorts stay small). */
  sortWithEffects(s: Scope): string {
    const v = this.p.pickVar(s, "strs")!;
    const scope: Scope = {
      ...s,
      loop: "none",
      async: false,
      vars: [...s.vars.filter((x) => x !== v), { name: "x", type: "str", mutable: false }],
    };
    return `${v.name}.sort((x, y) => {\n  if (${this.e.bool(scope)}) void ${this.w.trustedCall(scope)};\n  return x < y ? -1 : 1;\n});`;
  }

  /** A trusted call's promise with .then / .catch / .finally callbacks, or Promise.allSettled. */
  promiseCallbacks(s: Scope): string {
    const c = this.p.c;
    return c.weighted<string>([
      [
        2,
        true,
        () => `await ${this.w.trustedCall(s)}.then(async () => {\n${this.w.block({ ...s, loop: "none" }, "  ")}\n});`,
      ],
      [
        1,
        true,
        () =>
          `await ${this.w.trustedCall(s)}.catch(() => undefined).finally(() => {\n${this.w.block({ ...s, loop: "none", async: false }, "  ")}\n});`,
      ],
      [1, true, () => `await Promise.allSettled([${this.w.trustedCall(s)}, ${this.w.trustedCall(s)}]);`],
    ]);
  }
}
