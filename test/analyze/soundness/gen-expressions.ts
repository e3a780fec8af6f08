import { FLAVORS, TEMPLATE_TEXT, type Flavor } from "./alphabet.js";
import type { Program, Scope, Type } from "./gen-context.js";

const MAX_DEPTH = 3;
const lit = (v: string | number): string => JSON.stringify(v);

/**
 * Expressions of the supported subset, by type. Every composite is parenthesized, so that the text
 * means what the generator meant whatever surrounds it. `d` is the nesting depth: at the maximum
 * only literals and variables are written.
 */
export class Expressions {
  constructor(private readonly p: Program) {}

  of(type: Type, scope: Scope, flavor: Flavor = "text", d = 0): string {
    switch (type) {
      case "str":
        return this.str(scope, flavor, d);
      case "strs":
        return this.strs(scope, d);
      case "num":
        return this.num(scope, d);
      case "bool":
        return this.bool(scope, d);
      case "res":
        return "{}";
    }
  }

  str(scope: Scope, flavor: Flavor, d = 0): string {
    const c = this.p.c;
    const deeper = d < MAX_DEPTH;
    const varOf = (t: Type): string => this.p.pickVar(scope, t)!.name;
    return c.weighted<string>([
      [5, true, () => lit(c.item(FLAVORS[flavor]))],
      [4, this.p.has(scope, "str"), () => varOf("str")],
      [2, deeper, () => `(${this.str(scope, flavor, d + 1)} + ${this.str(scope, "text", d + 1)})`],
      [2, deeper, () => `\`${c.item(TEMPLATE_TEXT)}\${${this.str(scope, flavor, d + 1)}}${c.item(TEMPLATE_TEXT)}\``],
      [
        1,
        deeper,
        () => `(${this.bool(scope, d + 1)} ? ${this.str(scope, flavor, d + 1)} : ${this.str(scope, flavor, d + 1)})`,
      ],
      [
        2,
        this.p.has(scope, "res"),
        () => `String(${varOf("res")}.${c.item(["body", "content", "id", "subject", "status", "entries"])})`,
      ],
      [
        2,
        deeper,
        () =>
          `((${this.str(scope, flavor, d + 1)}).${c.item(["toLowerCase()", "trim()", "toUpperCase()", "slice(0, 3)", 'replace("a", "$&$&")', 'padStart(4, "0")', 'at(-1) ?? ""'])})`,
      ],
      [1, deeper, () => `(${this.strs(scope, d + 1)}).join(${lit(c.item([",", "", " "]))})`],
      [1, deeper, () => `((${this.strs(scope, d + 1)})[${c.int(3)}] ?? ${lit(c.item(FLAVORS[flavor]))})`],
      [1, deeper, () => `String(${this.num(scope, d + 1)})`],
      [1, deeper, () => `(String(${this.str(scope, flavor, d + 1)}) || ${lit(c.item(FLAVORS[flavor]))})`], // String(): the compiler refuses `"literal" || x`
      [
        1,
        this.p.has(scope, "res"),
        () => `String(${varOf("res")}?.${c.item(["body", "missing"])} ?? ${lit(c.item(FLAVORS[flavor]))})`,
      ],
      [
        1,
        deeper && this.p.pureHelpers.length > 0,
        () => `${c.item(this.p.pureHelpers)}(${this.str(scope, flavor, d + 1)})`,
      ],
      [
        1,
        this.p.has(scope, "res"),
        () => `String(${varOf("res")}[${lit(c.item(["hasOwnProperty", "toString", "valueOf"]))}])`,
      ], // Object.prototype names, not fields
      [1, deeper, () => `String(JSON.parse(JSON.stringify(${this.str(scope, flavor, d + 1)})))`],
      // Map lookups (a key that may be missing) and computed indexes (any number: past the end, negative, fractional)
      [
        1,
        deeper,
        () =>
          `(new Map([[${this.str(scope, "email", d + 1)}, ${this.str(scope, flavor, d + 1)}], [${this.str(scope, "email", d + 1)}, ${this.str(scope, flavor, d + 1)}]]).get(${this.str(scope, "email", d + 1)}) ?? ${lit(c.item(FLAVORS[flavor]))})`,
      ],
      [
        1,
        deeper,
        () =>
          `((${this.strs(scope, d + 1)})[${c.item([`(${this.num(scope, d + 1)}) - ${c.int(2)}`, `Math.floor(${this.num(scope, d + 1)} / 2)`, `Math.min(${this.num(scope, d + 1)}, 3)`])}] ?? ${lit(c.item(FLAVORS[flavor]))})`,
      ],
      [
        1,
        deeper,
        () => `([...new Set(${this.strs(scope, d + 1)})][${c.item(["0", "1"])}] ?? ${lit(c.item(FLAVORS[flavor]))})`,
      ],
    ]);
  }

  strs(scope: Scope, d = 0): string {
    const c = this.p.c;
    const deeper = d < MAX_DEPTH;
    const literal = (): string => {
      const items = Array.from({ length: c.int(4) }, () => this.str(scope, "email", d + 1));
      return items.length === 0 ? "([] as string[])" : `[${items.join(", ")}]`; // a bare [] would be never[]
    };
    return c.weighted<string>([
      [4, true, () => (deeper ? literal() : `[${lit(c.item(FLAVORS.email))}]`)],
      [4, this.p.has(scope, "strs"), () => this.p.pickVar(scope, "strs")!.name],
      [1, deeper, () => `[...${this.strs(scope, d + 1)}, ${this.str(scope, "email", d + 1)}]`],
      [1, deeper, () => `(${this.bool(scope, d + 1)} ? ${this.strs(scope, d + 1)} : ${this.strs(scope, d + 1)})`],
      [
        2,
        deeper,
        () =>
          `(${this.strs(scope, d + 1)}).${c.item(["slice(0, 1)", 'filter((x) => x !== "a@x.com")', "map((x) => x.toLowerCase())", 'concat(["c@y.org"])', "reverse()", "sort()"])}`,
      ],
      [1, deeper, () => `(${this.str(scope, "email", d + 1)}).split(",")`],
      [
        1,
        deeper && this.p.on("object-keys"),
        () =>
          `Object.keys(${this.bool(scope, d + 1)} ? { ${this.fields(scope, d + 1)} } : { ${this.fields(scope, d + 1)} })`,
      ],
      [
        1,
        deeper,
        () => c.item([`[...${this.str(scope, "text", d + 1)}]`, `Array.from(${this.str(scope, "text", d + 1)})`]),
      ], // code points
      [1, deeper, () => `Array.from(${this.strs(scope, d + 1)})`], // of a sparse list: undefined elements
      // holes only (or a RangeError); a literal length: Array's overloads re-check a nested argument per overload
      [1, deeper, () => `(Array(${c.item(["0", "1", "2", "3", "-1", "1.5", "NaN"])}) as string[])`],
      [1, deeper, () => `(${this.strs(scope, d + 1)}).flatMap((x) => [x, x])`],
      [1, deeper, () => `[${this.strs(scope, d + 1)}, ${this.strs(scope, d + 1)}].flat()`],
      [
        1,
        deeper,
        () => `Object.values({ a: ${this.str(scope, "email", d + 1)}, b: ${this.str(scope, "email", d + 1)} })`,
      ],
      [1, deeper, () => `Object.entries({ ${this.fields(scope, d + 1)} }).map((e) => e[0])`],
      [1, deeper, () => `[...new Set(${this.strs(scope, d + 1)})]`],
      [
        1,
        deeper,
        () =>
          c.item([
            `Array.from(new Map((${this.strs(scope, d + 1)}).map((k) => [k, k.length] as [string, number])).keys())`,
            `[...new Map((${this.strs(scope, d + 1)}).map((k) => [k.length, k] as [number, string])).values()]`,
          ]),
      ],
      [
        1,
        deeper,
        () =>
          `Object.keys(Object.fromEntries([[${this.str(scope, "email", d + 1)}, ${this.str(scope, "text", d + 1)}] as const]))`,
      ],
    ]);
  }

  /** Object literal fields keyed by addresses, for Object.keys: the two branches may differ. */
  private fields(scope: Scope, d: number): string {
    const keys = [...FLAVORS.email].filter(() => this.p.c.chance(50));
    return keys.map((k) => `${lit(k)}: ${this.str(scope, "text", d)}`).join(", ");
  }

  num(scope: Scope, d = 0): string {
    const c = this.p.c;
    const deeper = d < MAX_DEPTH;
    return c.weighted<string>([
      [4, true, () => String(c.int(4))],
      [3, this.p.has(scope, "num"), () => this.p.pickVar(scope, "num")!.name],
      [1, deeper, () => `(${this.num(scope, d + 1)} + ${this.num(scope, d + 1)})`],
      [2, deeper, () => `(${this.strs(scope, d + 1)}).length`],
      [1, deeper, () => `(${this.str(scope, "text", d + 1)}).length`],
      [1, deeper, () => `Math.min(${this.num(scope, d + 1)}, ${this.num(scope, d + 1)})`],
      [1, deeper, () => `${c.item(["Number", "parseInt"])}(${this.str(scope, "text", d + 1)})`],
      [1, true, () => "(2 ** 40)"],
      [1, deeper, () => `Array(${this.num(scope, d + 1)}).length`], // throws a RangeError past 2 ** 32 - 1
      [1, deeper, () => `new Set(${this.strs(scope, d + 1)}).size`],
      [1, deeper, () => `(${this.strs(scope, d + 1)}).indexOf(${this.str(scope, "email", d + 1)})`],
      [1, deeper, () => `(${this.num(scope, d + 1)} - ${this.num(scope, d + 1)})`],
    ]);
  }

  bool(scope: Scope, d = 0): string {
    const c = this.p.c;
    const deeper = d < MAX_DEPTH;
    return c.weighted<string>([
      [2, true, () => c.item(["true", "false"])],
      [3, this.p.has(scope, "bool"), () => this.p.pickVar(scope, "bool")!.name],
      [3, true, () => `((${this.str(scope, "text", d + 1)} as string) === ${lit(c.item(FLAVORS.text))})`], // as string: two literals may not be compared
      [2, true, () => `(${this.num(scope, d + 1)} < ${this.num(scope, d + 1)})`],
      [1, deeper, () => `(${this.strs(scope, d + 1)}).includes(${this.str(scope, "email", d + 1)})`],
      [1, deeper, () => `(${this.str(scope, "text", d + 1)}).startsWith(${lit(c.item(["a", "h", ""]))})`],
      [1, deeper, () => `!(${this.bool(scope, d + 1)})`],
      [1, deeper, () => `(${this.bool(scope, d + 1)} ${c.item(["&&", "||"])} ${this.bool(scope, d + 1)})`],
      [1, deeper, () => `(typeof [${this.str(scope, "text", d + 1)}][0] === "string")`], // not a reference: no narrowing to never
      [1, deeper, () => `new Set(${this.strs(scope, d + 1)}).has(${this.str(scope, "email", d + 1)})`],
    ]);
  }
}
