import type { QuickJSHandle } from "quickjs-emscripten-core";
import type { Json } from "../model/json.js";
import type { Bridge } from "./bridge.js";

/** A program value that is not plain data, with the path to the offending part. */
export class NotPlainData extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path === "" ? "the value" : path} ${reason}`);
  }
}

export const MAX_DEPTH = 64;
export const MAX_NODES = 10_000;
export const MAX_TEXT = 4 * 1024 * 1024; // characters across all strings and keys

interface Walk {
  bridge: Bridge;
  nodes: number;
  text: number;
  ancestors: QuickJSHandle[];
}

/**
 * A program value as JSON, read from its handle by the host without running any program code:
 * only own data properties are read (an accessor is refused, never called), only arrays and
 * objects whose prototype is the realm's own Array.prototype, Object.prototype or null are
 * accepted, and no conversion (toJSON, toString, valueOf) is ever looked up. As JSON.stringify
 * does, an object property holding undefined is left out and an array hole or undefined element is
 * null; unlike it, functions, symbols, non-finite numbers, other objects, cycles and values too
 * deep or too large are refused.
 */
export function toJson(bridge: Bridge, handle: QuickJSHandle): Json {
  const value = walk({ bridge, nodes: 0, text: 0, ancestors: [] }, handle, "");
  return value === undefined ? null : value;
}

function walk(w: Walk, handle: QuickJSHandle, path: string): Json | undefined {
  const { vm } = w.bridge;
  if (++w.nodes > MAX_NODES) throw new NotPlainData(path, `has more than ${MAX_NODES} parts`);
  const type = vm.typeof(handle);
  switch (type) {
    case "undefined":
      return undefined;
    case "boolean":
      return vm.sameValue(handle, vm.true);
    case "number": {
      const n = vm.getNumber(handle);
      if (!Number.isFinite(n)) throw new NotPlainData(path, `is ${n}, which is not JSON`);
      return n === 0 ? 0 : n; // -0 is 0, as in JSON
    }
    case "string":
      return count(w, vm.getString(handle), path);
    case "object":
      if (vm.sameValue(handle, vm.null)) return null;
      return walkObject(w, handle, path);
    default:
      throw new NotPlainData(path, `is a ${type}, which is not plain data`);
  }
}

function count(w: Walk, text: string, path: string): string {
  w.text += text.length;
  if (w.text > MAX_TEXT) throw new NotPlainData(path, `holds more than ${MAX_TEXT} characters of text`);
  return text;
}

function walkObject(w: Walk, handle: QuickJSHandle, path: string): Json {
  const { bridge } = w;
  const { vm } = bridge;
  if (w.ancestors.length >= MAX_DEPTH) throw new NotPlainData(path, `is nested more than ${MAX_DEPTH} levels deep`);
  if (w.ancestors.some((a) => vm.sameValue(a, handle))) throw new NotPlainData(path, "contains itself (a cycle)");
  const proto = vm.unwrapResult(vm.callFunction(bridge.getPrototypeOf, vm.undefined, handle));
  try {
    w.ancestors.push(handle);
    if (vm.sameValue(proto, bridge.arrayPrototype) && isArray(bridge, handle)) return walkArray(w, handle, path);
    if (vm.sameValue(proto, bridge.objectPrototype) || vm.sameValue(proto, vm.null)) return walkRecord(w, handle, path);
    throw new NotPlainData(path, "is not a plain object or array");
  } finally {
    w.ancestors.pop();
    proto.dispose();
  }
}

function isArray(bridge: Bridge, handle: QuickJSHandle): boolean {
  const { vm } = bridge;
  const result = vm.unwrapResult(vm.callFunction(bridge.isArray, vm.undefined, handle));
  const yes = vm.sameValue(result, vm.true);
  result.dispose();
  return yes;
}

function walkArray(w: Walk, handle: QuickJSHandle, path: string): Json[] {
  const { vm } = w.bridge;
  const length = vm.getLength(handle) ?? 0; // an array's length is an own data property
  if (length > MAX_NODES) throw new NotPlainData(path, `has more than ${MAX_NODES} parts`);
  const out: Json[] = [];
  for (let i = 0; i < length; i++) {
    const element = ownData(w, handle, String(i), `${path}[${i}]`);
    out.push(element === undefined ? null : element);
  }
  return out;
}

function walkRecord(w: Walk, handle: QuickJSHandle, path: string): Json {
  const { vm } = w.bridge;
  const keys = vm.unwrapResult(vm.getOwnPropertyNames(handle, { strings: true, numbersAsStrings: true, symbols: true }));
  const entries: [string, Json][] = [];
  try {
    for (const key of keys) {
      if (vm.typeof(key) === "symbol") throw new NotPlainData(path, "has a symbol-keyed property");
      const name = count(w, vm.getString(key), path);
      const value = ownData(w, handle, name, path === "" ? name : `${path}.${name}`);
      if (value !== undefined) entries.push([name, value]);
    }
  } finally {
    keys.dispose();
  }
  return Object.fromEntries(entries); // defines own properties, even one named __proto__
}

/** An own data property's value, through its descriptor so that an accessor is seen and never run; undefined when absent or not enumerable. */
function ownData(w: Walk, handle: QuickJSHandle, key: string, path: string): Json | undefined {
  const { bridge } = w;
  const { vm } = bridge;
  const keyHandle = vm.newString(key);
  const descriptor = vm.unwrapResult(vm.callFunction(bridge.getOwnPropertyDescriptor, vm.undefined, handle, keyHandle));
  keyHandle.dispose();
  try {
    if (vm.typeof(descriptor) === "undefined") return undefined;
    for (const accessor of ["get", "set"]) {
      const fn = vm.getProp(descriptor, accessor);
      const present = vm.typeof(fn) !== "undefined";
      fn.dispose();
      if (present) throw new NotPlainData(path, "is an accessor (getter or setter)");
    }
    const enumerable = vm.getProp(descriptor, "enumerable");
    const visible = vm.sameValue(enumerable, vm.true);
    enumerable.dispose();
    if (!visible) return undefined;
    const value = vm.getProp(descriptor, "value");
    try {
      return walk(w, value, path);
    } finally {
      value.dispose();
    }
  } finally {
    descriptor.dispose();
  }
}
