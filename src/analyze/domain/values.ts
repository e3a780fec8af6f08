import type { AbstractValue } from "../../model/index.js";
import type { Json } from "../../model/index.js";
import { viewPart } from "./result-view.js";
import {
  asArray,
  asCollection,
  type Collection,
  constant,
  constants,
  derived,
  isNumber,
  isPlainObject,
  join,
  numeric,
  tuple,
  tupleParts,
  unknown,
} from "./lattice.js";

/** Reading `key` from one JSON value the way JavaScript would; undefined when it is not an own, plain value. */
function propertyOfJson(value: Json, key: string): Json | undefined {
  if (typeof value === "string") {
    if (key === "length") return value.length;
    return isIndex(key) && Number(key) < value.length ? value[Number(key)] : undefined;
  }
  if (Array.isArray(value)) {
    if (key === "length") return value.length;
    return isIndex(key) ? value[Number(key)] : undefined;
  }
  if (isPlainObject(value) && Object.hasOwn(value, key)) return value[key];
  return undefined;
}

function isIndex(key: string): boolean {
  return /^(0|[1-9][0-9]*)$/.test(key);
}

/** `v[key]` (or `v.key`); anything we cannot read exactly is unknown, keeping v's provenance. */
export function getProperty(v: AbstractValue, key: string): AbstractValue {
  const collection = asCollection(v);
  if (collection !== undefined) return collectionProperty(v, collection, key);
  const parts = tupleParts(v);
  if (parts !== undefined && isIndex(key)) return parts[Number(key)] ?? unknown("undefined");
  if (key === "length" && (v.kind === "array" || v.kind === "string")) return numeric(lengthOf(v));
  switch (v.kind) {
    case "const": {
      const found = v.values.map((x) => propertyOfJson(x, key));
      if (found.every((x) => x !== undefined)) return constants(found as Json[]);
      return unknown(`property ${key}, which may be missing`);
    }
    case "record":
      // Own fields only: `hasOwnProperty` or `toString` is not a field (and not a value of ours).
      return Object.hasOwn(v.fields, key) ? v.fields[key]! : unknown(`property ${key}, which is missing`);
    case "array": {
      if (!isIndex(key)) return derived([v], `property ${key} of an array`);
      return Number(key) < v.length.min ? v.element : join(v.element, unknown("an index that may be out of range"));
    }
    case "string":
      return derived([v], `property ${key} of a string`); // the length is read above
    case "unknown":
      if (isNumber(v)) return derived([v], `property ${key} of a number`);
      return viewPart(v, key, isIndex(key)) ?? v; // not a number itself
  }
}

function lengthOf(v: AbstractValue & { kind: "array" | "string" }): AbstractValue {
  if (v.kind === "string") return derived([v], "the length of a string");
  // an untrusted list's length is untrusted
  return v.length.min === v.length.max ? constant(v.length.min) : derived([v], "the length of an array");
}

/**
 * A property of a Map, a Set or an iterator of theirs: their methods live on frozen prototypes
 * (calls are interpreted in calls.ts), `size` counts the entries, which depends on every key (two
 * equal keys make one entry); an iterator's only method is `next`. Anything else is undefined.
 */
function collectionProperty(v: AbstractValue, c: Collection, key: string): AbstractValue {
  if (key === "size" && c.kind !== "Iterator")
    return numeric(
      c.size.min === c.size.max
        ? constant(c.size.min)
        : derived([c.key === undefined ? unknown("no key") : c.key], `the size of a ${c.kind}`),
    );
  if (collectionMethods[c.kind].includes(key)) return unknown(`the method ${key} of a ${c.kind}`);
  return derived([v], `property ${key}, which a ${c.kind} does not have`);
}

const collectionMethods: Record<Collection["kind"], string[]> = {
  Map: ["get", "has", "forEach", "keys", "values", "entries", "set", "delete", "clear"],
  Set: ["has", "forEach", "keys", "values", "entries", "add", "delete", "clear"],
  Iterator: ["next"],
};

/** What iterating a collection yields, one item: a Map's [key, value] entries, a Set's elements. */
export function collectionItem(c: Collection): AbstractValue {
  const key = c.key ?? unknown("an item of an empty collection");
  if (c.kind !== "Map") return key;
  return tuple([key, c.value ?? unknown("a value of an empty Map")]);
}

/** `v[k]` for an abstract key. */
export function getElement(v: AbstractValue, k: AbstractValue): AbstractValue {
  if (k.kind === "const" && k.values.every((x) => typeof x === "string" || typeof x === "number")) {
    return k.values.map((x) => getProperty(v, String(x))).reduce(join);
  }
  const array = asArray(v);
  if (array !== undefined) return join(array.element, unknown("an index that may be out of range"));
  return derived([v, k], "a computed property");
}

/**
 * What iterating `v` yields (`for...of`, `[...v]`, array destructuring, Array.from) as an array
 * value: an array's elements, or a string's code points (not its UTF-16 units); undefined when v
 * may not be iterable.
 */
export function iterated(v: AbstractValue): AbstractValue | undefined {
  if (asArray(v) !== undefined) return v;
  const collection = asCollection(v);
  if (collection !== undefined) return { kind: "array", element: collectionItem(collection), length: collection.size };
  if (v.kind === "const" && v.values.every((x) => typeof x === "string"))
    return constants(v.values.map((x) => [...(x as string)]));
  if (v.kind === "string")
    return { kind: "array", element: derived([v], "a character of a string"), length: { min: 0, max: null } };
  return undefined;
}

/** An array built from parts: single values and spread arrays (spread strings are already their code points). */
export function arrayOf(parts: { value: AbstractValue; spread: boolean }[]): AbstractValue {
  const exact: Json[] = [];
  let allExact = true;
  for (const part of parts) {
    const only = part.value.kind === "const" && part.value.values.length === 1 ? part.value.values[0]! : undefined;
    if (only === undefined || (part.spread && !Array.isArray(only))) {
      allExact = false;
      break;
    }
    if (part.spread) for (const x of only as Json[]) exact.push(x);
    else exact.push(only);
  }
  if (allExact) return constant(exact);
  let element: AbstractValue | undefined;
  let min = 0;
  let max: number | null = 0;
  for (const part of parts) {
    if (!part.spread) {
      element = element === undefined ? part.value : join(element, part.value);
      min++;
      if (max !== null) max++;
      continue;
    }
    const view = asArray(part.value);
    const e = view?.element ?? derived([part.value], "a spread value");
    element = element === undefined ? e : join(element, e);
    min += view?.length.min ?? 0;
    max = max === null || view === undefined || view.length.max === null ? null : max + view.length.max;
  }
  return { kind: "array", element: element ?? unknown("an element of an empty array"), length: { min, max } };
}
