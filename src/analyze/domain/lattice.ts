import type { AbstractValue, CountRange, Provenance } from "../../model/index.js";
import type { Json } from "../../model/index.js";
import { mergeProvenance, provenanceOf } from "../../constraint/index.js";
import { MAX_CONSTANT_DEPTH, MAX_CONSTANT_SIZE, MAX_CONSTANTS } from "../limits.js";

export { mergeProvenance, provenanceOf };

/**
 * The value lattice of the analysis. Every operation here over-approximates: a join's
 * concretization contains both inputs', and anything the analysis cannot follow becomes `unknown`
 * with the provenance of whatever flowed into it (so untrusted data stays marked untrusted).
 */

export function constant(value: Json): AbstractValue {
  if (value !== null && typeof value === "object") return constants([value]);
  return { kind: "const", values: [value] };
}

/** Whether a constant is past the size or depth the analysis follows exactly (a doubling loop soon is). */
function tooLarge(value: Json): boolean {
  let budget = MAX_CONSTANT_SIZE;
  const stack: [Json, number][] = [[value, 0]];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [v, depth] = top;
    if (depth > MAX_CONSTANT_DEPTH) return true;
    const children = Array.isArray(v) ? v : v !== null && typeof v === "object" ? Object.values(v) : undefined;
    budget -= typeof v === "string" ? v.length : (children?.length ?? 1);
    if (budget < 0) return true;
    for (const child of children ?? []) stack.push([child, depth + 1]);
  }
  return false;
}

/** Constants too large to follow: arrays keep their lengths, the rest is unknown. */
function generalized(values: Json[]): AbstractValue {
  if (!values.every(Array.isArray)) return unknown("a value too large for the analysis to follow");
  const lengths = values.map((a) => (a as Json[]).length);
  return {
    kind: "array",
    element: unknown("an element of an array too large for the analysis to follow"),
    length: { min: Math.min(...lengths), max: Math.max(...lengths) },
  };
}

export function unknown(source: string, untrusted = false): AbstractValue {
  return { kind: "unknown", provenance: [{ source, untrusted }] };
}

/** An unknown result computed from `inputs`: it keeps their provenance, or gets `source` if they had none. */
export function derived(inputs: AbstractValue[], source: string): AbstractValue {
  const provenance = mergeProvenance(inputs.map(provenanceOf));
  return { kind: "unknown", provenance: provenance.length > 0 ? provenance : [{ source, untrusted: false }] };
}

export function isUntrusted(value: AbstractValue): boolean {
  return provenanceOf(value).some((p) => p.untrusted);
}

/** A key for a JSON value in a constant set. Key order is part of an object's value: Object.keys shows it. */
export function jsonKey(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(jsonKey).join(",")}]`;
  if (value !== null && typeof value === "object")
    return `{${Object.keys(value)
      .map((k) => `${JSON.stringify(k)}:${jsonKey(value[k]!)}`)
      .join(",")}}`;
  return JSON.stringify(value);
}

/** A constant set, or its generalization when it grows too large. */
export function constants(values: Json[]): AbstractValue {
  if (values.some(tooLarge)) return generalized(values);
  const unique = new Map<string, Json>();
  for (const v of values) unique.set(jsonKey(v), v);
  const list = [...unique.values()];
  if (list.length <= MAX_CONSTANTS) return { kind: "const", values: list };
  if (list.every((v) => typeof v === "string")) return stringOf(list as string[], []);
  if (list.every(Array.isArray)) return arrayOfConstants(list as Json[][]);
  return unknown("one of many values");
}

/** The strings starting with the common prefix of `strings` and ending with their common suffix. */
function stringOf(strings: string[], provenance: Provenance[]): AbstractValue {
  let prefix = strings[0] ?? "";
  let suffix = prefix;
  for (const s of strings) {
    prefix = commonPrefix(prefix, s);
    suffix = commonSuffix(suffix, s);
  }
  return { kind: "string", prefix, suffix, provenance };
}

function commonPrefix(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return a.slice(0, i);
}

function commonSuffix(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[a.length - 1 - i] === b[b.length - 1 - i]) i++;
  return a.slice(a.length - i);
}

/** The array view of constant arrays: every element of every array, lengths as a range. */
function arrayOfConstants(arrays: Json[][]): AbstractValue {
  const elements = arrays.flat();
  const lengths = arrays.map((a) => a.length);
  const length = { min: Math.min(...lengths), max: Math.max(...lengths) };
  return {
    kind: "array",
    element: elements.length > 0 ? constants(elements) : unknown("element of an empty array"),
    length,
  };
}

/** `value` as an array view if every concrete value is an array; undefined otherwise. */
export function asArray(value: AbstractValue): { element: AbstractValue; length: CountRange } | undefined {
  if (value.kind === "array") return value;
  if (value.kind === "const" && value.values.every(Array.isArray)) {
    const view = arrayOfConstants(value.values as Json[][]);
    return view.kind === "array" ? view : undefined;
  }
  return undefined;
}

export function joinCounts(a: CountRange, b: CountRange): CountRange {
  return { min: Math.min(a.min, b.min), max: a.max === null || b.max === null ? null : Math.max(a.max, b.max) };
}

// Abstract values are never changed once made. A program can build records whose parts are shared
// (`o = { a: o, b: o }` doubled n times): joins of two records are kept, so that joining such
// values costs the number of distinct pairs of parts, not 2^n.
const recordJoins = new WeakMap<AbstractValue, WeakMap<AbstractValue, AbstractValue>>();

/** The least upper bound we can express of two abstract values. */
export function join(a: AbstractValue, b: AbstractValue): AbstractValue {
  if (a === b) return a;
  if (a.kind === "record" && b.kind === "record") {
    let withA = recordJoins.get(a);
    if (withA === undefined) recordJoins.set(a, (withA = new WeakMap()));
    let joined = withA.get(b);
    if (joined === undefined) withA.set(b, (joined = joinOnce(a, b)));
    return joined;
  }
  return joinOnce(a, b);
}

function joinOnce(a: AbstractValue, b: AbstractValue): AbstractValue {
  const joined = joinParts(a, b);
  if (joined !== a && joined !== b && isNumber(a) && isNumber(b)) numeric(joined);
  return joined;
}

function joinParts(a: AbstractValue, b: AbstractValue): AbstractValue {
  if (a.kind === "const" && b.kind === "const") return constants([...a.values, ...b.values]);
  const ca = asCollection(a);
  const cb = asCollection(b);
  if (ca !== undefined && cb !== undefined && ca.kind === cb.kind) return joinCollections(ca, cb);
  const sa = asStringView(a);
  const sb = asStringView(b);
  if (sa !== undefined && sb !== undefined) {
    const provenance = mergeProvenance([sa.provenance, sb.provenance]);
    return {
      kind: "string",
      prefix: commonPrefix(sa.prefix, sb.prefix),
      suffix: commonSuffix(sa.suffix, sb.suffix),
      provenance,
    };
  }
  const aa = asArray(a);
  const ab = asArray(b);
  if (aa !== undefined && ab !== undefined) {
    return { kind: "array", element: join(aa.element, ab.element), length: joinCounts(aa.length, ab.length) };
  }
  // A record's keys are exact, in order (Object.keys reads them): objects with other keys join to unknown.
  const ra = asRecord(a);
  const rb = asRecord(b);
  if (ra !== undefined && rb !== undefined && sameKeys(ra, rb)) {
    // fromEntries defines each field, so that a key named __proto__ stays a field (an assignment would set the
    // prototype).
    const fields = Object.fromEntries(Object.keys(ra).map((key) => [key, join(ra[key]!, rb[key]!)]));
    return { kind: "record", fields };
  }
  return derived([a, b], "one of several values");
}

/** A string value seen as prefix/suffix (a single-constant string is its own prefix and suffix). */
function asStringView(value: AbstractValue): { prefix: string; suffix: string; provenance: Provenance[] } | undefined {
  if (value.kind === "string") return value;
  if (value.kind === "const" && value.values.every((v) => typeof v === "string")) {
    const view = stringOf(value.values as string[], []);
    return view.kind === "string" ? view : undefined;
  }
  return undefined;
}

function sameKeys(a: object, b: object): boolean {
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k, i) => k === kb[i]);
}

/** The fields of a record or of constant plain objects that all have the same keys in the same order. */
export function asRecord(value: AbstractValue): Record<string, AbstractValue> | undefined {
  if (value.kind === "record") return value.fields;
  if (value.kind !== "const") return undefined;
  const objects = value.values.filter(isPlainObject);
  if (objects.length !== value.values.length || objects.length === 0) return undefined;
  if (!objects.every((o) => sameKeys(o, objects[0]!))) return undefined;
  // a __proto__ key stays a field, as in join
  return Object.fromEntries(Object.keys(objects[0]!).map((key) => [key, constants(objects.map((o) => o[key]!))]));
}

export function isPlainObject(value: Json): value is { [key: string]: Json } {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** The one constant array `v` is, if it is one. */
export function singleArray(v: AbstractValue): Json[] | undefined {
  return v.kind === "const" && v.values.length === 1 && Array.isArray(v.values[0]) ? v.values[0] : undefined;
}

/** A single known value, if the abstract value is exactly one constant. */
export function single(value: AbstractValue): Json | undefined {
  return value.kind === "const" && value.values.length === 1 ? value.values[0] : undefined;
}

/** A constant made of a record/array whose parts are all single constants, folded back into one constant. */
export function fold(value: AbstractValue): AbstractValue {
  if (value.kind === "record") {
    const out: Record<string, Json> = {};
    for (const [key, field] of Object.entries(value.fields)) {
      const v = single(field);
      if (v === undefined) return value;
      out[key] = v;
    }
    return constant(out);
  }
  return value;
}

/**
 * A Map, a Set or one of their iterators. The abstract value that stands for one is an `unknown`
 * carrying the provenance of everything it holds, so that any part of the analysis that does not
 * know collections still treats it soundly (as some object made from that data); this table gives
 * the collection's view to the parts that do. A join of two collections of the same kind is a
 * collection again; anything else that makes a new value (a widening, a heap that may be changed
 * through another name) loses the view and keeps the provenance.
 *
 * `key` over-approximates every key (a Set's every element; an iterator's every item), `value`
 * every value of a Map; undefined means there is none (an empty collection). `size` bounds how many
 * entries it holds (an iterator: how many items it yields). Nothing assumes an order.
 */
export interface Collection {
  kind: "Map" | "Set" | "Iterator";
  key?: AbstractValue;
  value?: AbstractValue;
  size: CountRange;
}

const collections = new WeakMap<AbstractValue, Collection>();

export function collectionValue(c: Collection): AbstractValue {
  const provenance = mergeProvenance(
    [c.key, c.value].filter((v): v is AbstractValue => v !== undefined).map(provenanceOf),
  );
  const value: AbstractValue = {
    kind: "unknown",
    provenance: provenance.length > 0 ? provenance : [{ source: `a ${c.kind}`, untrusted: false }],
  };
  collections.set(value, c);
  return value;
}

export function asCollection(v: AbstractValue): Collection | undefined {
  return collections.get(v);
}

function joinCollections(a: Collection, b: Collection): AbstractValue {
  const both = (x: AbstractValue | undefined, y: AbstractValue | undefined): AbstractValue | undefined =>
    x === undefined ? y : y === undefined ? x : join(x, y);
  return collectionValue({
    kind: a.kind,
    key: both(a.key, b.key),
    value: both(a.value, b.value),
    size: joinCounts(a.size, b.size),
  });
}

/**
 * Values known to be numbers although their value is not known (arithmetic, Math, a length, an
 * index a built-in passes): what a computed member access needs of its key.
 */
const numbers = new WeakSet<AbstractValue>();

export function numeric(v: AbstractValue): AbstractValue {
  if (v.kind === "unknown" && collections.has(v)) return v; // never mark a collection's own value
  numbers.add(v);
  return v;
}

/** Whether every concrete value of `v` is a number. */
export function isNumber(v: AbstractValue): boolean {
  if (v.kind === "const") return v.values.every((x) => typeof x === "number");
  return numbers.has(v);
}

/**
 * Short arrays whose elements are known one by one (a Map's [key, value] entries): the array value
 * joins them, and this table keeps each, so that `const [k, v] = entry` keeps k's and v's apart.
 */
const tuples = new WeakMap<AbstractValue, AbstractValue[]>();

export function tuple(parts: AbstractValue[]): AbstractValue {
  const exact = parts.map(single);
  if (parts.every((p, i) => exact[i] !== undefined && p.kind === "const")) return constant(exact as Json[]);
  const value: AbstractValue = {
    kind: "array",
    element: parts.reduce(join),
    length: { min: parts.length, max: parts.length },
  };
  tuples.set(value, parts);
  return value;
}

export function tupleParts(v: AbstractValue): AbstractValue[] | undefined {
  return tuples.get(v);
}
