import type { Choices } from "./choices.js";

/**
 * Constructs the generator can leave out while the analyzer gets them wrong (each has an open case
 * in regressions.test.ts), so that the property test keeps checking everything else.
 */
export type Feature = "object-keys" | "detached-throw" | "key-order" | "doubling";

export type Type = "str" | "strs" | "num" | "bool" | "res";

export const TS_TYPE: Record<Type, string> = {
  str: "string",
  strs: "string[]",
  num: "number",
  bool: "boolean",
  res: "Record<string, unknown>",
};

export interface Var {
  name: string;
  type: Type;
  mutable: boolean; // the generator may assign it (loop counters and the like are never assigned)
  fixed?: boolean; // an array a for...of walks: never grown without a bound (the loop would not end)
}

/** Where a statement is being written: what is in scope and which jumps are legal. */
export interface Scope {
  vars: Var[];
  loop: "none" | "for" | "while"; // `continue` only in for loops: a while loop's counter step is at its end
  async: boolean; // `await` allowed
  noThrow?: boolean; // code that may run detached, while detached throws are a known open problem
  depth: number;
}

/** What the whole program being written shares: the choice stream, names, imports, helpers. */
export class Program {
  private next = 0;
  readonly imports = new Map<string, Set<string>>();
  readonly helpers: string[] = []; // top-level function declarations, in the order written
  readonly asyncHelpers: { name: string; params: Type[] }[] = [];
  readonly pureHelpers: string[] = [];
  readonly after: string[] = []; // top-level declarations after `export default`: they run before main
  statements = 0;

  constructor(
    readonly c: Choices,
    readonly disabled: ReadonlySet<Feature> = new Set(),
  ) {}

  on(feature: Feature): boolean {
    return !this.disabled.has(feature);
  }

  fresh(prefix: string): string {
    return `${prefix}${++this.next}`;
  }

  use(module: string, name: string): string {
    const names = this.imports.get(module) ?? new Set<string>();
    names.add(name);
    this.imports.set(module, names);
    return name;
  }

  pickVar(scope: Scope, type: Type, mutableOnly = false): Var | undefined {
    const found = scope.vars.filter((v) => v.type === type && (!mutableOnly || v.mutable));
    return found.length === 0 ? undefined : this.c.item(found);
  }

  has(scope: Scope, type: Type, mutableOnly = false): boolean {
    return scope.vars.some((v) => v.type === type && (!mutableOnly || v.mutable));
  }
}
