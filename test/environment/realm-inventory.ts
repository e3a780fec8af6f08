import { INTRINSICS } from "../../src/environment/environment.js";

/** One object a program can reach: where it is first found, whether it is frozen, and its own properties. */
export interface Reached {
  path: string;
  frozen: boolean;
  /** The path of its prototype, or null. */
  proto: string | null;
  /** Per key: `value <type> <primitive or path>` or `get <path> set <path>`, with its attributes. */
  props: Record<string, string>;
}

export interface Inventory {
  /** Everything reachable from the global object and the intrinsics, in the order found. */
  reached: Reached[];
  /** Function constructors or eval found anywhere, with the path where. */
  forbidden: string[];
}

/**
 * JavaScript to evaluate in a realm before it is hardened: an expression whose value is a function
 * that, called afterwards, walks everything reachable from the global object and the intrinsics a
 * program reaches through syntax, and returns the inventory as JSON text. It takes all it uses
 * before the hardening (which removes it from the realm) and runs in any engine.
 *
 * Objects are named by the first path that reaches them, breadth first and in sorted key order,
 * so that two realms holding the same graph name every object alike: comparing two inventories
 * compares the realms.
 */
export function inventoryScript(): string {
  const roots = INTRINSICS.map(
    (i) => `[${JSON.stringify(i.name)}, (() => { try { return ${i.find}; } catch (e) { return undefined; } })()]`,
  ).join(",\n    ");
  return `(() => {
  "use strict";
  const O = Object, R = Reflect, G = globalThis;
  const getPrototypeOf = O.getPrototypeOf, isFrozen = O.isFrozen, ownKeys = R.ownKeys, describe = R.getOwnPropertyDescriptor, apply = R.apply;
  const stringify = JSON.stringify, StringCtor = String;
  const MapCtor = Map, mapGet = Map.prototype.get, mapSet = Map.prototype.set, mapHas = Map.prototype.has;
  const push = Array.prototype.push, sort = Array.prototype.sort, splice = Array.prototype.splice, shift = Array.prototype.shift;
  const wellKnown = new MapCtor();
  const symbolNames = O.getOwnPropertyNames(Symbol);
  for (let i = 0; i < symbolNames.length; i++) {
    const value = Symbol[symbolNames[i]];
    if (typeof value === "symbol") apply(mapSet, wellKnown, [value, "@@" + symbolNames[i]]);
  }
  const keyName = (key) => (typeof key === "symbol" ? apply(mapGet, wellKnown, [key]) || "@@?" : key);
  // Object.prototype named as a root: node:vm puts an object of its own between the global object and it.
  const roots = [
    ["globalThis", G],
    ["Object.prototype", O.prototype],
    ${roots}
  ];
  const forbidden = new MapCtor([
    [Function, "Function"],
    [getPrototypeOf(async function () {}).constructor, "AsyncFunction"],
    [getPrototypeOf(function* () {}).constructor, "GeneratorFunction"],
    [getPrototypeOf(async function* () {}).constructor, "AsyncGeneratorFunction"],
    [eval, "eval"],
  ]);
  const isObject = (v) => v !== null && (typeof v === "object" || typeof v === "function");
  return () => {
    const paths = new MapCtor();
    const queue = [];
    const out = { reached: [], forbidden: [] };
    const visit = (value, path) => {
      if (!isObject(value) || apply(mapHas, paths, [value])) return;
      apply(mapSet, paths, [value, path]);
      apply(push, queue, [value]);
      if (apply(mapHas, forbidden, [value])) apply(push, out.forbidden, [apply(mapGet, forbidden, [value]) + " at " + path]);
    };
    // Roots keep their own names; the global object's graph is walked first, then each other root's.
    for (let i = 0; i < roots.length; i++) visit(roots[i][1], roots[i][0]);
    const rest = apply(splice, queue, [2, queue.length]);
    const entries = [];
    for (let q = 0; q < queue.length || rest.length > 0; q++) {
      if (q === queue.length) apply(push, queue, [apply(shift, rest, [])]);
      const object = queue[q];
      const path = apply(mapGet, paths, [object]);
      const keys = ownKeys(object);
      const named = [];
      for (let k = 0; k < keys.length; k++) apply(push, named, [[StringCtor(keyName(keys[k])), keys[k]]]);
      apply(sort, named, [(a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)]);
      for (let k = 0; k < named.length; k++) {
        const d = describe(object, named[k][1]);
        visit(d.value, path + "." + named[k][0]);
        visit(d.get, path + "." + named[k][0] + "(get)");
        visit(d.set, path + "." + named[k][0] + "(set)");
      }
      visit(getPrototypeOf(object), path + ".[[Prototype]]");
      apply(push, entries, [[object, path, named]]);
    }
    const ref = (v) => (isObject(v) ? apply(mapGet, paths, [v]) : typeof v === "number" && v !== v ? "NaN" : stringify(v));
    for (let e = 0; e < entries.length; e++) {
      const [object, path, named] = entries[e];
      const props = { __proto__: null }; // keys such as toString would hit the frozen Object.prototype's
      for (let k = 0; k < named.length; k++) {
        const d = describe(object, named[k][1]);
        const flags = (d.enumerable ? "e" : "-") + (d.configurable ? "c" : "-") + ("value" in d ? (d.writable ? "w" : "-") : "");
        props[named[k][0]] = ("value" in d ? "value " + typeof d.value + " " + ref(d.value) : "get " + ref(d.get) + " set " + ref(d.set)) + " " + flags;
      }
      const proto = getPrototypeOf(object);
      apply(push, out.reached, [{ path, frozen: isFrozen(object), proto: proto === null ? null : ref(proto), props }]);
    }
    return stringify(out);
  };
})()`;
}
