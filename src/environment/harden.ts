import { GLOBALS, INTRINSICS, type Member } from "./environment.js";

/** What a realm keeps: the own keys of each global, of its prototype, and of each intrinsic. */
export interface RuntimeAllowlist {
  globals: Record<string, { statics: string[]; prototype?: string[] }>;
  intrinsics: { name: string; keep: string[] }[];
}

const names = (members: readonly Member[]): string[] => members.map((m) => m.name);

export function runtimeAllowlist(): RuntimeAllowlist {
  const globals: RuntimeAllowlist["globals"] = {};
  for (const g of GLOBALS) {
    if (g.typesOnly === true) continue;
    globals[g.name] = { statics: names(g.statics?.members ?? []), ...(g.prototype === undefined ? {} : { prototype: names(g.prototype.members) }) };
  }
  return { globals, intrinsics: INTRINSICS.map((i) => ({ name: i.name, keep: names(i.members) })) };
}

/**
 * JavaScript to evaluate in a fresh realm before the program: the realm then offers exactly the
 * environment. From the global object and the intrinsics a program reaches through syntax
 * (function, iterator and regexp prototypes, errors the engine throws), every object reachable
 * through properties, accessors and prototypes is visited; each keeps only the keys its entry
 * lists (a function with no entry keeps `length` and `name`, any other object nothing), and all
 * are frozen. A key that cannot be removed stops the script with an error, so the realm is never
 * left half-built; only the engine's constants (`Math.PI`: fixed primitives) stay where they are.
 * The script takes what it uses from the realm before it removes anything, and needs neither
 * `eval` nor the host.
 */
export function hardeningScript(allow: RuntimeAllowlist = runtimeAllowlist()): string {
  const finds = INTRINSICS.map((i) => `[${JSON.stringify(i.name)}, () => ${i.find}]`).join(",\n    ");
  return `(function () {
  "use strict";
  const allow = ${JSON.stringify(allow)};
  const intrinsics = [
    ${finds}
  ];
  const O = Object, R = Reflect, G = globalThis;
  const getPrototypeOf = O.getPrototypeOf, freeze = O.freeze, isFrozen = O.isFrozen, defineProperty = O.defineProperty;
  const ownKeys = R.ownKeys, deleteProperty = R.deleteProperty, getOwnPropertyDescriptor = R.getOwnPropertyDescriptor, apply = R.apply;
  const push = Array.prototype.push, includes = Array.prototype.includes;
  const SymbolCtor = Symbol, MapCtor = Map, mapGet = Map.prototype.get, mapSet = Map.prototype.set, mapHas = Map.prototype.has;
  const ErrorCtor = Error;
  const wellKnown = new MapCtor();
  const symbolNames = O.getOwnPropertyNames(SymbolCtor);
  for (let i = 0; i < symbolNames.length; i++) {
    const value = SymbolCtor[symbolNames[i]];
    if (typeof value === "symbol") apply(mapSet, wellKnown, [value, "@@" + symbolNames[i]]);
  }
  const keyName = (key) => (typeof key === "symbol" ? apply(mapGet, wellKnown, [key]) || "@@?" : key);
  const keep = new MapCtor(); // object -> the key names it keeps
  const plan = (object, keys) => {
    if (object !== null && (typeof object === "object" || typeof object === "function")) apply(mapSet, keep, [object, keys]);
  };
  plan(G, O.keys(allow.globals));
  const globalNames = O.keys(allow.globals);
  for (let i = 0; i < globalNames.length; i++) {
    const entry = allow.globals[globalNames[i]];
    const value = G[globalNames[i]];
    if (typeof value === "function") {
      const statics = ["length", "name"];
      apply(push, statics, entry.statics);
      if (entry.prototype !== undefined) apply(push, statics, ["prototype"]);
      plan(value, statics);
      if (entry.prototype !== undefined) plan(value.prototype, entry.prototype);
    } else plan(value, entry.statics);
  }
  for (let i = 0; i < intrinsics.length; i++) {
    const entry = allow.intrinsics[i];
    plan(intrinsics[i][1](), entry.keep);
  }
  // Everything reachable from the global object and the intrinsics, with what each keeps.
  const queue = [];
  const seen = new MapCtor();
  const visit = (value) => {
    if (value === null || (typeof value !== "object" && typeof value !== "function") || apply(mapHas, seen, [value])) return;
    apply(mapSet, seen, [value, true]);
    apply(push, queue, [value]);
  };
  visit(G);
  for (let i = 0; i < intrinsics.length; i++) visit(intrinsics[i][1]());
  for (let q = 0; q < queue.length; q++) {
    const object = queue[q];
    const kept = apply(mapHas, keep, [object]) ? apply(mapGet, keep, [object]) : typeof object === "function" ? ["length", "name"] : [];
    const keys = ownKeys(object);
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k];
      if (apply(includes, kept, [keyName(key)])) {
        const d = getOwnPropertyDescriptor(object, key);
        visit(d.value);
        visit(d.get);
        visit(d.set);
      } else if (!deleteProperty(object, key)) {
        // The engine's constants (Math.PI, Number.MAX_VALUE) cannot be removed; a fixed primitive reaches nothing.
        const d = getOwnPropertyDescriptor(object, key);
        const constant = "value" in d && !d.writable && (d.value === null || (typeof d.value !== "object" && typeof d.value !== "function"));
        if (!constant) throw new ErrorCtor("the environment cannot remove " + String(keyName(key)));
      }
    }
    visit(getPrototypeOf(object));
  }
  // A host may refuse to freeze its global object (node:vm's is a proxy): its globals are locked one by one.
  const globals = ownKeys(G);
  for (let k = 0; k < globals.length; k++) {
    const d = getOwnPropertyDescriptor(G, globals[k]);
    // Whole descriptors: node:vm copies a partial one onto its context object as it is, value and all.
    if (d.configurable || d.writable) defineProperty(G, globals[k], "value" in d ? { value: d.value, enumerable: d.enumerable, writable: false, configurable: false } : { get: d.get, set: d.set, enumerable: d.enumerable, configurable: false });
  }
  for (let q = 0; q < queue.length; q++) {
    if (queue[q] === G) continue;
    freeze(queue[q]);
    if (!isFrozen(queue[q])) throw new ErrorCtor("the environment cannot freeze an intrinsic");
  }
})();`;
}
