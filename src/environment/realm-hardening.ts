/** What the hardening function is given: the allowlist as data, built by harden.ts. */
export interface HardeningPlan {
  /** JSON text of the key sets: the global object's, then each object's (see keySet in harden.ts). */
  keySets: string;
  /** The objects' names, comma-separated, for the errors. */
  names: string;
  /** Indexes of the objects only some engines have. */
  engineSpecific: number[];
  maxArrayLength: number;
  guardedMethods: string[];
}

type KeySet = [Record<PropertyKey, 1>] | [Record<PropertyKey, 1>, string[]];
type AnyFunction = (this: unknown, ...args: unknown[]) => unknown;

/**
 * Runs in a fresh realm before the program (harden.ts gives it its text; see hardeningScript
 * there for what it does and why). `findObjects` finds the listed objects in the realm.
 *
 * Written for an interpreter (QuickJS runs it before every program): few calls per visited
 * object, the allowlist as JSON text whose key sets JSON.parse builds (faster than the same
 * object literals compile, or a loop fills), and Map methods bound once. It takes what it uses
 * from the realm before it removes anything, and needs neither `eval` nor the host.
 */
export function hardenRealm(plan: HardeningPlan, findObjects: (G: typeof globalThis) => unknown[]): void {
  const G = globalThis;
  const O = Object;
  const R = Reflect;
  const Fail = Error;
  const SymbolCtor = Symbol as unknown as Record<string, unknown>;
  const keySets = JSON.parse(plan.keySets) as KeySet[]; // the global object's, then each object's
  const names = plan.names;
  const engineSpecific = plan.engineSpecific;
  const objects = findObjects(G);
  const getPrototypeOf = O.getPrototypeOf;
  const freeze = O.freeze;
  const defineProperty = O.defineProperty;
  const ownKeys = R.ownKeys;
  const deleteProperty = R.deleteProperty;
  const describe = R.getOwnPropertyDescriptor;
  const apply = R.apply;
  const FunctionPrototype = Function.prototype;
  const bind = FunctionPrototype.bind;
  const MapCtor = Map;
  const mapMethods = Map.prototype;

  // Array methods that walk a length check it first (see GUARDED_METHODS in harden.ts).
  {
    const MAX_LENGTH = plan.maxArrayLength;
    const ArrayProto = G.Array.prototype as unknown as Record<string, unknown>;
    const isArray = G.Array.isArray;
    const RangeErr = RangeError;
    const TypeErr = TypeError;
    const getProto = Object.getPrototypeOf;
    const describeOwn = Reflect.getOwnPropertyDescriptor;
    const define = Object.defineProperty;
    const call = Reflect.apply;
    // A property as the method would Get it, found without running program code: an accessor is refused.
    const dataAt = (start: object, key: PropertyKey): unknown => {
      for (let o: object | null = start; o !== null; o = getProto(o)) {
        const d = describeOwn(o, key);
        if (d === undefined) continue;
        if (!("value" in d))
          throw new TypeErr(
            `an array method does not read ${key === "length" ? "a length" : "an element"} through an accessor`,
          );
        return d.value;
      }
      return undefined;
    };
    const lengthOf = (target: unknown): number => {
      // a primitive: as long as its memory allows
      if (target === null || (typeof target !== "object" && typeof target !== "function")) return 0;
      if (isArray(target)) return target.length;
      const length = dataAt(target, "length");
      if (length !== null && (typeof length === "object" || typeof length === "function"))
        throw new TypeErr("an array method needs an array-like whose length is a primitive");
      return +(length as number) || 0;
    };
    const check = (n: number): number => {
      if (n > MAX_LENGTH) throw new RangeErr(`an array method over ${n} elements: at most ${MAX_LENGTH} are allowed`);
      return n;
    };
    // The elements flat(depth) visits: the array's, then those of each array it enters, read without calling a getter.
    const flatSize = (target: unknown, depth: number, total: number): number => {
      const n = lengthOf(target);
      total = check(total + n);
      if (!(depth >= 1) || target === null || (typeof target !== "object" && typeof target !== "function"))
        return total;
      for (let i = 0; i < n; i++) {
        const element = dataAt(target, i);
        if (isArray(element)) total = flatSize(element, depth - 1, total);
      }
      return total;
    };
    const wrap = (name: string, method: (original: AnyFunction) => AnyFunction): void => {
      const original = ArrayProto[name];
      if (typeof original !== "function") return;
      const wrapped = method(original as AnyFunction);
      define(wrapped, "length", { value: original.length, writable: false, enumerable: false, configurable: true });
      define(ArrayProto, name, { value: wrapped, writable: true, enumerable: false, configurable: true });
    };
    const guarded = plan.guardedMethods;
    for (let i = 0; i < guarded.length; i++) {
      const name = guarded[i] as string;
      wrap(
        name,
        (original) =>
          ({
            [name](this: unknown, ...args: unknown[]) {
              check(lengthOf(this));
              return call(original, this, args);
            },
          })[name] as AnyFunction,
      );
    }
    wrap(
      "concat",
      (original) =>
        ({
          concat(this: unknown, ...items: unknown[]) {
            let total = check(lengthOf(this));
            for (let i = 0; i < items.length; i++) {
              const item = items[i];
              if (isArray(item)) total = check(total + item.length);
            }
            return call(original, this, items);
          },
        }).concat,
    );
    wrap(
      "flat",
      (original) =>
        ({
          flat(this: unknown, depth?: unknown) {
            // converted once: the method gets the number that was checked
            const d = depth === undefined ? 1 : +(depth as number);
            flatSize(this, d, 0);
            return call(original, this, [d]);
          },
        }).flat,
    );
    wrap(
      "flatMap",
      (original) =>
        ({
          flatMap(this: unknown, callback?: unknown, thisArg?: unknown) {
            check(lengthOf(this));
            if (typeof callback !== "function") return call(original, this, [callback, thisArg]);
            return call(original, this, [
              (value: unknown, index: number, array: unknown) => {
                const mapped = call(callback, thisArg, [value, index, array]);
                if (isArray(mapped)) check(mapped.length);
                return mapped;
              },
            ]);
          },
        }).flatMap,
    );
  }

  const kept = new MapCtor<object, Record<PropertyKey, 1>>(); // object -> the keys it keeps
  const seen = new MapCtor<object, true>(); // the objects visited
  const keysOf = apply(bind, mapMethods.get, [kept]) as (o: object) => Record<PropertyKey, 1> | undefined;
  const planKeys = apply(bind, mapMethods.set, [kept]) as (o: object, keys: Record<PropertyKey, 1>) => void;
  const isSeen = apply(bind, mapMethods.has, [seen]) as (o: object) => boolean;
  const see = apply(bind, mapMethods.set, [seen]) as (o: object, v: true) => void;
  const isObject = (value: unknown): value is object =>
    value !== null && (typeof value === "object" || typeof value === "function");
  // The keys an object keeps: a lookup is one property read (a value of 1: never an inherited one).
  const keySet = (entry: KeySet): Record<PropertyKey, 1> => {
    const keys = entry[0];
    const symbols = entry[1] || [];
    for (let i = 0; i < symbols.length; i++) {
      const symbol = SymbolCtor[symbols[i] as string];
      if (typeof symbol !== "symbol") throw new Fail(`the environment names no symbol ${symbols[i]}`);
      keys[symbol] = 1;
    }
    return keys;
  };
  const globalKeys = keySets[0] as KeySet;
  const globalNames = O.keys(globalKeys[0]);
  for (let i = 0; i < globalNames.length; i++)
    if (!((globalNames[i] as string) in G)) throw new Fail(`the environment cannot find ${globalNames[i]}`);
  planKeys(G, keySet(globalKeys));
  const queue: object[] = [];
  const visit = (value: unknown): void => {
    if (value !== null && (typeof value === "object" || typeof value === "function") && !isSeen(value)) {
      see(value, true);
      queue[queue.length] = value;
    }
  };
  visit(G);
  for (let i = 0; i < objects.length; i++) {
    const object = objects[i];
    if (object === undefined && engineSpecific.indexOf(i) >= 0) continue; // another engine's
    if (!isObject(object) || keysOf(object) !== undefined)
      throw new Fail(`the environment cannot find ${names.split(",")[i]} as an object of its own`);
    planKeys(object, keySet(keySets[i + 1] as KeySet));
    visit(object);
  }
  const remove = (object: object, key: PropertyKey): void => {
    if (deleteProperty(object, key)) return;
    // The engine's constants (Math.PI, Number.MAX_VALUE) cannot be removed; a fixed primitive reaches nothing.
    const d = describe(object, key) as PropertyDescriptor;
    if (!("value" in d) || d.writable || isObject(d.value))
      throw new Fail(`the environment cannot remove ${String(key)}`);
  };
  // Everything reachable from the global object and the intrinsics.
  for (let q = 0; q < queue.length; q++) {
    const object = queue[q] as object;
    const keeps = keysOf(object);
    const keys = ownKeys(object);
    if (keeps === undefined && typeof object === "function") {
      // A function the environment does not list (a method, a getter) keeps its length and name.
      // The language makes both data properties holding a number and a string (SetFunctionLength,
      // SetFunctionName), so they are read rather than described: most visited objects are such
      // functions, and this is the bulk of the script's time.
      for (let k = 0; k < keys.length; k++) {
        const key = keys[k] as PropertyKey;
        if (key !== "length" && key !== "name") remove(object, key);
        else if (isObject((object as unknown as Record<PropertyKey, unknown>)[key]))
          throw new Fail(`the environment expects a primitive as a function's ${String(key)}`);
      }
    } else {
      for (let k = 0; k < keys.length; k++) {
        const key = keys[k] as PropertyKey;
        if (keeps === undefined || keeps[key] !== 1) remove(object, key);
        else {
          const d = describe(object, key) as PropertyDescriptor;
          visit(d.value);
          visit(d.get);
          visit(d.set);
        }
      }
    }
    const prototype = getPrototypeOf(object);
    if (prototype !== FunctionPrototype) visit(prototype); // a root, visited already: spare the call
  }
  // The global object is closed where the host allows it (QuickJS). node:vm's is a proxy that
  // refuses: there each global is fixed, and the object stays extensible; no program can name it
  // to add to it (no globalThis, strict code only).
  if (R.preventExtensions(G)) freeze(G);
  else {
    const globals = ownKeys(G);
    for (let k = 0; k < globals.length; k++) {
      const d = describe(G, globals[k] as PropertyKey) as PropertyDescriptor;
      // Whole descriptors: node:vm copies a partial one onto its context object as it is, value and all.
      if (d.configurable || d.writable)
        defineProperty(
          G,
          globals[k] as PropertyKey,
          "value" in d
            ? { value: d.value, enumerable: d.enumerable, writable: false, configurable: false }
            : { get: d.get, set: d.set, enumerable: d.enumerable, configurable: false },
        );
    }
  }
  // Object.freeze throws where it cannot freeze.
  for (let q = 1; q < queue.length; q++) freeze(queue[q]); // queue[0] is the global object
}
