import { types } from "node:util";
import { CountersignError } from "../model/index.js";
import { MARSHAL_LIMITS, type Json, type MarshalLimits } from "../model/index.js";

/**
 * A value from the program's realm (a vm context, the sandbox) as fresh JSON data, read without
 * running any program code: no `toJSON`, `valueOf` or `toString`, no getter, no proxy trap.
 * Only own data properties are read, through their descriptors. Accepted: strings, finite
 * numbers (-0 becomes 0), booleans, null, dense arrays whose prototype is an Array.prototype of
 * any realm, and objects whose prototype is null or an Object.prototype of any realm (an object
 * without a prototype of its own); a field whose value is undefined is left out, as JSON does.
 * Refused with a typed error naming the path: functions (own `toJSON`, `valueOf`: any function
 * value), accessors, symbols (values and keys), bigints, undefined in a list, non-enumerable
 * properties, proxies, other prototypes (Date, Map, class instances, boxed primitives), sparse
 * arrays or extra array properties, cycles, non-finite numbers, and data past `limits`.
 * The check and the connector then both see this one copy, which the program cannot reach.
 */
export function marshal(value: unknown, limits: MarshalLimits = MARSHAL_LIMITS): Json {
  const budget = { nodes: 0, chars: 0 };
  const open = new Set<object>(); // the objects on the current path: one seen again is a cycle
  const walk = (v: unknown, path: string, depth: number): Json => {
    if (++budget.nodes > limits.maxNodes) throw tooLarge(path, `more than ${limits.maxNodes} values`);
    if (v === null || typeof v === "boolean") return v;
    if (typeof v === "string") return countChars(v, path);
    if (typeof v === "number") {
      if (!Number.isFinite(v)) throw refused(path, `${v} is not a finite number`);
      return v === 0 ? 0 : v;
    }
    if (typeof v !== "object")
      throw refused(path, typeof v === "function" ? "a function is not data" : `a ${typeof v} is not data`);
    if (types.isProxy(v)) throw refused(path, "a proxy is not data");
    if (depth >= limits.maxDepth) throw tooLarge(path, `nested more than ${limits.maxDepth} levels deep`);
    if (open.has(v)) throw refused(path, "a cycle is not data");
    open.add(v);
    try {
      return Array.isArray(v) ? walkArray(v, path, depth) : walkObject(v, path, depth);
    } finally {
      open.delete(v);
    }
  };
  const countChars = (text: string, path: string): string => {
    budget.chars += text.length;
    if (budget.chars > limits.maxChars) throw tooLarge(path, `more than ${limits.maxChars} characters`);
    return text;
  };
  const walkArray = (array: unknown[], path: string, depth: number): Json[] => {
    const proto: unknown = Object.getPrototypeOf(array);
    if (proto === null || !Array.isArray(proto) || types.isProxy(proto))
      throw refused(path, "a list must have a list prototype");
    const length = dataOf(array, "length", path);
    const keys = Reflect.ownKeys(array);
    if (typeof length !== "number" || keys.length !== length + 1)
      throw refused(path, "a list must be dense, with no other properties");
    const out: Json[] = [];
    for (let i = 0; i < length; i++) {
      const element = dataOf(array, String(i), `${path}[${i}]`);
      if (element === undefined) throw refused(`${path}[${i}]`, "undefined is not data");
      out.push(walk(element, `${path}[${i}]`, depth + 1));
    }
    return out;
  };
  const walkObject = (object: object, path: string, depth: number): { [key: string]: Json } => {
    if (!isObjectPrototype(Object.getPrototypeOf(object)))
      throw refused(path, "only plain objects are data (this one has another prototype)");
    const out: { [key: string]: Json } = {};
    for (const key of Reflect.ownKeys(object)) {
      if (typeof key === "symbol") throw refused(path, "a symbol key is not data");
      const at = `${path}.${key}`;
      const field = dataOf(object, key, at);
      if (field === undefined) continue;
      countChars(key, at);
      // defineProperty, so that a key named __proto__ stays a field.
      Object.defineProperty(out, key, {
        value: walk(field, at, depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  };
  return walk(value, "args", 0);
}

/** An own, enumerable data property's value, read from its descriptor (never through a getter). */
function dataOf(object: object, key: string, path: string): unknown {
  const descriptor = Object.getOwnPropertyDescriptor(object, key);
  if (descriptor === undefined) throw refused(path, "a missing element is not data");
  if (!("value" in descriptor)) throw refused(path, "a getter or setter is not data");
  if (!descriptor.enumerable && key !== "length") throw refused(path, "a hidden property is not data");
  return descriptor.value;
}

// null, or the Object.prototype of some realm: the one object whose own prototype is null and
// which is no proxy. (A prototype-less object a program made itself passes too: only the value's
// own properties are read, so what the prototype holds never runs.)
function isObjectPrototype(proto: unknown): boolean {
  if (proto === null) return true;
  return typeof proto === "object" && !types.isProxy(proto) && Object.getPrototypeOf(proto) === null;
}

function refused(path: string, why: string): CountersignError {
  return new CountersignError("grant_violation", "sandbox", `${path}: ${why}; a trusted call takes plain data only`, {
    details: { reason: "not_plain_data", path },
  });
}

function tooLarge(path: string, why: string): CountersignError {
  return new CountersignError(
    "resource_limit_exceeded",
    "sandbox",
    `${path}: ${why}; a trusted call takes at most that much data`,
    { details: { reason: "too_large", path } },
  );
}
