import { GLOBALS, INTRINSICS, MAX_ARRAY_LENGTH, type Member } from "./environment.js";

/** One object of the environment as a realm finds it, and the own keys it keeps. */
export interface KeptObject {
  name: string;
  /** JavaScript source of an expression that finds it in the realm (`G` is the global object). */
  find: string;
  keep: string[];
  /** Only some engines have it: the others find undefined and skip it. */
  engineSpecific?: true;
}

/** What a realm keeps: the global object's keys, and each listed object's own keys. */
export interface RuntimeAllowlist {
  globals: string[];
  objects: KeptObject[];
}

const names = (members: readonly Member[]): string[] => members.map((m) => m.name);

/** The environment as a realm keeps it: what the hardening script is built from, and the agreement tests compare against. */
export function runtimeAllowlist(): RuntimeAllowlist {
  const objects: KeptObject[] = [];
  const present = GLOBALS.filter((g) => g.typesOnly !== true);
  for (const g of present) {
    const statics = names(g.statics?.members ?? []);
    // A global with a prototype is a constructor: a function, which keeps its length, name and prototype.
    if (g.prototype !== undefined) {
      objects.push({ name: g.name, find: `G.${g.name}`, keep: ["length", "name", "prototype", ...statics] });
      objects.push({ name: `${g.name}.prototype`, find: `G.${g.name}.prototype`, keep: names(g.prototype.members) });
    } else if (g.statics !== undefined) objects.push({ name: g.name, find: `G.${g.name}`, keep: statics });
  }
  for (const i of INTRINSICS) objects.push({ name: i.name, find: i.find, keep: names(i.members), ...(i.engineSpecific === true ? { engineSpecific: true as const } : {}) });
  return { globals: present.map((g) => g.name), objects };
}

let script: string | undefined;

/**
 * JavaScript to evaluate in a fresh realm before the program: the realm then offers exactly the
 * environment. Every runner (node:vm for the tests, QuickJS for programs) runs this same text.
 *
 * From the global object and the intrinsics a program reaches through syntax (function, iterator
 * and regexp prototypes, errors the engine throws), every object reachable through properties,
 * accessors and prototypes is visited; each keeps only the keys its entry lists (a function with
 * no entry keeps `length` and `name`, any other object nothing), and all are frozen. A key that
 * cannot be removed, or a listed global or object the realm lacks, stops the script with an
 * error, so the realm is never left half-built; only the engine's constants (`Math.PI`: fixed
 * primitives) stay where they are. The script takes what it uses from the realm before it removes
 * anything, and needs neither `eval` nor the host.
 */
export function hardeningScript(): string {
  script ??= buildScript(runtimeAllowlist());
  return script;
}

/**
 * The environment's array methods with their lengths checked first (MAX_ARRAY_LENGTH). An engine
 * may walk an array's length in a native loop that never yields (QuickJS asks its interrupt
 * handler only between bytecodes), and a length is set by assignment where nothing can check it:
 * `a.length = 2 ** 32 - 1` makes an empty array whose join() would run for minutes. So each
 * method that walks \`this\` refuses one longer than the cap with a RangeError before it starts;
 * concat counts its arguments too, flat every array it would enter, flatMap each array its callback
 * returns. The length is read without running program code (an array's own length; an array-like's
 * data property, never an accessor, which could answer one length here and another to the
 * method), so the method walks exactly what was checked. Wrappers keep the method's name and length.
 */
const GUARDED_METHODS = ["every", "filter", "forEach", "includes", "indexOf", "join", "map", "reduce", "slice", "some", "reverse", "shift", "sort", "splice", "unshift"];

const ARRAY_GUARDS = `  // Array methods that walk a length check it first (see GUARDED_METHODS in harden.ts).
  {
    const MAX_LENGTH = ${MAX_ARRAY_LENGTH}, ArrayProto = G.Array.prototype, isArray = G.Array.isArray, RangeErr = RangeError, TypeErr = TypeError;
    const getProto = Object.getPrototypeOf, describeOwn = Reflect.getOwnPropertyDescriptor, define = Object.defineProperty, call = Reflect.apply;
    // A property as the method would Get it, found without running program code: an accessor is refused.
    const dataAt = (O, key) => {
      for (let o = O; o !== null; o = getProto(o)) {
        const d = describeOwn(o, key);
        if (d === undefined) continue;
        if (!("value" in d)) throw new TypeErr("an array method does not read " + (key === "length" ? "a length" : "an element") + " through an accessor");
        return d.value;
      }
      return undefined;
    };
    const lengthOf = (O) => {
      if (O === null || (typeof O !== "object" && typeof O !== "function")) return 0; // a primitive: as long as its memory allows
      if (isArray(O)) return O.length;
      const length = dataAt(O, "length");
      if (length !== null && (typeof length === "object" || typeof length === "function")) throw new TypeErr("an array method needs an array-like whose length is a primitive");
      return +length || 0;
    };
    const check = (n) => {
      if (n > MAX_LENGTH) throw new RangeErr("an array method over " + n + " elements: at most " + MAX_LENGTH + " are allowed");
      return n;
    };
    // The elements flat(depth) visits: O's, then those of each array it enters, read without calling a getter.
    const flatSize = (O, depth, total) => {
      const n = lengthOf(O);
      total = check(total + n);
      if (!(depth >= 1) || O === null || (typeof O !== "object" && typeof O !== "function")) return total;
      for (let i = 0; i < n; i++) {
        const element = dataAt(O, i);
        if (isArray(element)) total = flatSize(element, depth - 1, total);
      }
      return total;
    };
    const wrap = (name, method) => {
      const original = ArrayProto[name];
      if (typeof original !== "function") return;
      const wrapped = method(original);
      define(wrapped, "length", { value: original.length, writable: false, enumerable: false, configurable: true });
      define(ArrayProto, name, { value: wrapped, writable: true, enumerable: false, configurable: true });
    };
    const names = ${JSON.stringify(GUARDED_METHODS)};
    for (let i = 0; i < names.length; i++) {
      const name = names[i];
      wrap(name, (original) => ({ [name](...args) { check(lengthOf(this)); return call(original, this, args); } })[name]);
    }
    wrap("concat", (original) => ({ concat(...items) {
      let total = check(lengthOf(this));
      for (let i = 0; i < items.length; i++) if (isArray(items[i])) total = check(total + items[i].length);
      return call(original, this, items);
    } }).concat);
    wrap("flat", (original) => ({ flat(depth) {
      const d = depth === undefined ? 1 : +depth; // converted once: the method gets the number that was checked
      flatSize(this, d, 0);
      return call(original, this, [d]);
    } }).flat);
    wrap("flatMap", (original) => ({ flatMap(callback, thisArg) {
      check(lengthOf(this));
      if (typeof callback !== "function") return call(original, this, [callback, thisArg]);
      return call(original, this, [(value, index, array) => {
        const mapped = call(callback, thisArg, [value, index, array]);
        if (isArray(mapped)) check(mapped.length);
        return mapped;
      }]);
    } }).flatMap);
  }`;

/** Key names as a set for the script: string keys as an object's keys (JSON.parse builds it), then any well-known symbols by name. */
function keySet(names: readonly string[]): [Record<string, 1>] | [Record<string, 1>, string[]] {
  const keys = Object.fromEntries(names.filter((n) => !n.startsWith("@@")).map((n) => [n, 1] as const));
  const symbols = names.filter((n) => n.startsWith("@@")).map((n) => n.slice(2));
  return symbols.length === 0 ? [keys] : [keys, symbols];
}

// Written for an interpreter (QuickJS runs it before every program): few calls per visited
// object, the allowlist as JSON text whose key sets JSON.parse builds (faster than the same
// object literals compile, or a loop fills), and Map methods bound once.
function buildScript(allow: RuntimeAllowlist): string {
  // Only the key sets go through JSON: every key JSON.parse reads costs the interpreter.
  const data = [keySet(allow.globals), ...allow.objects.map((o) => keySet(o.keep))];
  const engineSpecific = allow.objects.flatMap((o, i) => (o.engineSpecific === true ? [i] : []));
  return `(function () {
  "use strict";
  const G = globalThis, O = Object, R = Reflect, Fail = Error, SymbolCtor = Symbol;
  const keySets = JSON.parse(${JSON.stringify(JSON.stringify(data))}); // the global object's, then each object's
  const names = ${JSON.stringify(allow.objects.map((o) => o.name).join(","))};
  const engineSpecific = ${JSON.stringify(engineSpecific)};
  const objects = [
    ${allow.objects.map((o) => o.find).join(",\n    ")}
  ];
  const getPrototypeOf = O.getPrototypeOf, freeze = O.freeze, defineProperty = O.defineProperty;
  const ownKeys = R.ownKeys, deleteProperty = R.deleteProperty, describe = R.getOwnPropertyDescriptor, apply = R.apply;
  const FunctionPrototype = Function.prototype, bind = FunctionPrototype.bind, MapCtor = Map, mapMethods = Map.prototype;
${ARRAY_GUARDS}
  const kept = new MapCtor(), seen = new MapCtor(); // object -> the keys it keeps; the objects visited
  const keysOf = apply(bind, mapMethods.get, [kept]), plan = apply(bind, mapMethods.set, [kept]);
  const isSeen = apply(bind, mapMethods.has, [seen]), see = apply(bind, mapMethods.set, [seen]);
  const isObject = (value) => value !== null && (typeof value === "object" || typeof value === "function");
  // The keys an object keeps: a lookup is one property read (a value of 1: never an inherited one).
  const keySet = (entry) => {
    const keys = entry[0], symbols = entry[1] || [];
    for (let i = 0; i < symbols.length; i++) {
      if (typeof SymbolCtor[symbols[i]] !== "symbol") throw new Fail("the environment names no symbol " + symbols[i]);
      keys[SymbolCtor[symbols[i]]] = 1;
    }
    return keys;
  };
  const globalNames = O.keys(keySets[0][0]);
  for (let i = 0; i < globalNames.length; i++) if (!(globalNames[i] in G)) throw new Fail("the environment cannot find " + globalNames[i]);
  plan(G, keySet(keySets[0]));
  const queue = [];
  const visit = (value) => {
    if (value !== null && (typeof value === "object" || typeof value === "function") && !isSeen(value)) {
      see(value, true);
      queue[queue.length] = value;
    }
  };
  visit(G);
  for (let i = 0; i < objects.length; i++) {
    if (objects[i] === undefined && engineSpecific.indexOf(i) >= 0) continue; // another engine's
    if (!isObject(objects[i]) || keysOf(objects[i]) !== undefined) throw new Fail("the environment cannot find " + names.split(",")[i] + " as an object of its own");
    plan(objects[i], keySet(keySets[i + 1]));
    visit(objects[i]);
  }
  const remove = (object, key) => {
    if (deleteProperty(object, key)) return;
    // The engine's constants (Math.PI, Number.MAX_VALUE) cannot be removed; a fixed primitive reaches nothing.
    const d = describe(object, key);
    if (!("value" in d) || d.writable || isObject(d.value)) throw new Fail("the environment cannot remove " + String(key));
  };
  // Everything reachable from the global object and the intrinsics.
  for (let q = 0; q < queue.length; q++) {
    const object = queue[q];
    const keeps = keysOf(object);
    const keys = ownKeys(object);
    if (keeps === undefined && typeof object === "function") {
      // A function the environment does not list (a method, a getter) keeps its length and name.
      // The language makes both data properties holding a number and a string (SetFunctionLength,
      // SetFunctionName), so they are read rather than described: most visited objects are such
      // functions, and this is the bulk of the script's time.
      for (let k = 0; k < keys.length; k++) {
        if (keys[k] !== "length" && keys[k] !== "name") remove(object, keys[k]);
        else if (isObject(object[keys[k]])) throw new Fail("the environment expects a primitive as a function's " + keys[k]);
      }
    } else {
      for (let k = 0; k < keys.length; k++) {
        if (keeps === undefined || keeps[keys[k]] !== 1) remove(object, keys[k]);
        else {
          const d = describe(object, keys[k]);
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
      const d = describe(G, globals[k]);
      // Whole descriptors: node:vm copies a partial one onto its context object as it is, value and all.
      if (d.configurable || d.writable) defineProperty(G, globals[k], "value" in d ? { value: d.value, enumerable: d.enumerable, writable: false, configurable: false } : { get: d.get, set: d.set, enumerable: d.enumerable, configurable: false });
    }
  }
  // Object.freeze throws where it cannot freeze.
  for (let q = 1; q < queue.length; q++) freeze(queue[q]); // queue[0] is the global object
})();`;
}
