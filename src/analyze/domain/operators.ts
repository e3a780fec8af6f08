import type { AbstractValue } from "../../model/index.js";
import type { Json } from "../../model/index.js";
import {
  asCollection,
  constant,
  constants,
  derived,
  isNumber,
  join,
  mergeProvenance,
  numeric,
  provenanceOf,
  unknown,
} from "./lattice.js";
import { MAX_OPERATOR_COMBINATIONS, MAX_STRING } from "../limits.js";

/**
 * JavaScript operators on abstract values. On constants we run the real operator on the real
 * JSON values (they are plain data, so no user code runs), which makes the result exact whatever
 * the TypeScript types claim; otherwise the result is derived, or a partly known string for `+`.
 */

/** A primitive result as a constant, or unknown when JSON cannot hold it (NaN, Infinity, undefined, -0). */
export function fromJs(value: unknown, source: string): AbstractValue {
  if (value === null || typeof value === "string" || typeof value === "boolean") return constant(value);
  if (typeof value === "number" && Number.isFinite(value) && !Object.is(value, -0)) return constant(value);
  return unknown(source);
}

/**
 * Apply `op` to every pair of primitive constants, joining the results; undefined if there are too
 * many pairs or an object among them (converting an object runs its conversion methods, or throws).
 */
function product(
  a: AbstractValue,
  b: AbstractValue,
  op: (x: Json, y: Json) => unknown,
  source: string,
): AbstractValue | undefined {
  if (a.kind !== "const" || b.kind !== "const" || a.values.length * b.values.length > MAX_OPERATOR_COMBINATIONS)
    return undefined;
  if (!a.values.every(isPrimitive) || !b.values.every(isPrimitive)) return undefined;
  if (length(a) + length(b) > MAX_STRING) return undefined;
  let out: AbstractValue | undefined;
  for (const x of a.values)
    for (const y of b.values) {
      const r = fromJs(op(x, y), source);
      out = out === undefined ? r : join(out, r);
    }
  return out;
}

const isPrimitive = (v: Json): boolean => v === null || typeof v !== "object";

/** The longest string among constants (what `+` may concatenate). */
const length = (v: AbstractValue): number =>
  v.kind === "const" ? Math.max(0, ...v.values.map((x) => (typeof x === "string" ? x.length : 0))) : 0;

type Arith = (x: never, y: never) => unknown;
const arithmetic: Record<string, Arith> = {
  "+": (x, y) => (x as number) + (y as number),
  "-": (x, y) => (x as number) - (y as number),
  "*": (x, y) => (x as number) * (y as number),
  "/": (x, y) => (x as number) / (y as number),
  "%": (x, y) => (x as number) % (y as number),
  "**": (x, y) => power(x as number, y as number),
  "<": (x, y) => (x as number) < (y as number),
  ">": (x, y) => (x as number) > (y as number),
  "<=": (x, y) => (x as number) <= (y as number),
  ">=": (x, y) => (x as number) >= (y as number),
  "&": (x, y) => (x as number) & (y as number),
  "|": (x, y) => (x as number) | (y as number),
  "^": (x, y) => (x as number) ^ (y as number),
  "<<": (x, y) => (x as number) << (y as number),
  ">>": (x, y) => (x as number) >> (y as number),
  ">>>": (x, y) => (x as number) >>> (y as number),
};

/**
 * Engines round ** differently (V8 and QuickJS differ in the last digit of 7 ** -23): only an
 * integer to a non-negative integer power that gives a safe integer is the same everywhere.
 */
function power(x: number, y: number): number | undefined {
  const result = x ** y;
  return Number.isInteger(+x) && Number.isInteger(+y) && +y >= 0 && Number.isSafeInteger(result) ? result : undefined;
}

// Equality on objects compares identity, which constants do not model: only primitives compare exactly.
const equality: Record<string, (x: Json, y: Json) => boolean> = {
  "===": (x, y) => x === y,
  "!==": (x, y) => x !== y,
  // biome-ignore lint/suspicious/noDoubleEquals: the operator the program wrote, evaluated as JavaScript does
  "==": (x, y) => x == y,
  // biome-ignore lint/suspicious/noDoubleEquals: the operator the program wrote, evaluated as JavaScript does
  "!=": (x, y) => x != y,
};

const eitherBoolean = constants([true, false]);

/** Operators whose result is always a number (bigint is refused): `+` too when both sides are numbers. */
const NUMERIC = new Set(["-", "*", "/", "%", "**", "&", "|", "^", "<<", ">>", ">>>"]);

export function binary(op: string, a: AbstractValue, b: AbstractValue): AbstractValue {
  const result = binaryOf(op, a, b);
  return NUMERIC.has(op) || (op === "+" && isNumber(a) && isNumber(b)) ? numeric(result) : result;
}

function binaryOf(op: string, a: AbstractValue, b: AbstractValue): AbstractValue {
  const eq = equality[op];
  if (eq !== undefined) {
    if (a.kind === "const" && b.kind === "const" && a.values.every(isPrimitive) && b.values.every(isPrimitive)) {
      return product(a, b, eq, "a comparison") ?? eitherBoolean;
    }
    return eitherBoolean;
  }
  const fn = arithmetic[op];
  if (fn === undefined) return derived([a, b], `the ${op} operator`);
  const exact = product(a, b, fn as (x: Json, y: Json) => unknown, `the ${op} operator`);
  if (exact !== undefined) return exact;
  if (op === "+") return concat(a, b) ?? derived([a, b], "the + operator");
  if (["<", ">", "<=", ">="].includes(op)) return eitherBoolean;
  return derived([a, b], `the ${op} operator`);
}

/** `a + b` when one side is known to be a string: a string with the known prefix and suffix. */
function concat(a: AbstractValue, b: AbstractValue): AbstractValue | undefined {
  if (!isString(a) && !isString(b)) return undefined;
  const provenance = mergeProvenance([provenanceOf(a), provenanceOf(b)]); // deduplicated: s = s + s must not double it
  const prefix = knownStart(a) + (isWhollyKnown(a) ? knownStart(b) : "");
  const suffix = (isWhollyKnown(b) ? knownEnd(a) : "") + knownEnd(b);
  return { kind: "string", prefix: prefix.slice(0, MAX_STRING), suffix: suffix.slice(-MAX_STRING), provenance };
}

function isString(v: AbstractValue): boolean {
  return v.kind === "string" || (v.kind === "const" && v.values.every((x) => typeof x === "string"));
}

function isWhollyKnown(v: AbstractValue): boolean {
  return v.kind === "const" && v.values.length === 1 && isPrimitive(v.values[0]!);
}

/** What every concrete string form of `v` starts with. */
function knownStart(v: AbstractValue): string {
  if (v.kind === "string") return v.prefix;
  if (v.kind === "const" && v.values.length === 1 && isPrimitive(v.values[0]!)) return String(v.values[0]);
  return "";
}

function knownEnd(v: AbstractValue): string {
  if (v.kind === "string") return v.suffix;
  if (v.kind === "const" && v.values.length === 1 && isPrimitive(v.values[0]!)) return String(v.values[0]);
  return "";
}

/** A template literal's text: head, then each substitution followed by its literal text. */
export function template(head: string, spans: { value: AbstractValue; text: string }[]): AbstractValue {
  let out: AbstractValue = constant(head);
  for (const span of spans) out = binary("+", binary("+", out, stringified(span.value)), constant(span.text));
  return out;
}

/** `${v}`: exact on primitive constants; otherwise a string derived from v. */
function stringified(v: AbstractValue): AbstractValue {
  if (v.kind === "const" && v.values.every(isPrimitive)) return constants(v.values.map((x) => String(x)));
  if (v.kind === "string") return v;
  const provenance = provenanceOf(v);
  return {
    kind: "string",
    prefix: "",
    suffix: "",
    provenance: provenance.length > 0 ? provenance : [{ source: "a value in a template", untrusted: false }],
  };
}

export type Truth = "yes" | "no" | "maybe";

/** Whether every / no concrete value is truthy. */
export function truthy(v: AbstractValue): Truth {
  if (v.kind === "const") {
    const all = v.values.map((x) => Boolean(x));
    return all.every((x) => x) ? "yes" : all.every((x) => !x) ? "no" : "maybe";
  }
  if (v.kind === "array" || v.kind === "record" || asCollection(v) !== undefined) return "yes";
  if (v.kind === "string" && (v.prefix !== "" || v.suffix !== "")) return "yes";
  return "maybe";
}

/** Whether `v` is null or undefined (`??`, `?.`): an unknown may be undefined; constants are JSON. */
export function nullish(v: AbstractValue): Truth {
  if (v.kind === "const")
    return v.values.every((x) => x === null) ? "yes" : v.values.some((x) => x === null) ? "maybe" : "no";
  return v.kind === "unknown" && asCollection(v) === undefined ? "maybe" : "no";
}

export function fromTruth(t: Truth): AbstractValue {
  return t === "yes" ? constant(true) : t === "no" ? constant(false) : eitherBoolean;
}

export function unary(op: string, v: AbstractValue): AbstractValue {
  if (op === "!") {
    const t = truthy(v);
    return fromTruth(t === "yes" ? "no" : t === "no" ? "yes" : "maybe");
  }
  if (v.kind === "const" && v.values.every(isPrimitive)) {
    const fn: Record<string, (x: never) => unknown> = {
      "-": (x) => -(x as number),
      "+": (x) => +(x as number),
      "~": (x) => ~(x as number),
    };
    const f = fn[op];
    if (f !== undefined) return numeric(v.values.map((x) => fromJs(f(x as never), `the ${op} operator`)).reduce(join));
  }
  const result = derived([v], `the ${op} operator`);
  return op === "-" || op === "+" || op === "~" ? numeric(result) : result;
}

/** `typeof v`, exact on constants. */
export function typeOf(v: AbstractValue): AbstractValue {
  if (v.kind === "const") return constants(v.values.map((x) => (x === null ? "object" : typeof x)));
  if (v.kind === "string") return constant("string");
  if (v.kind === "array" || v.kind === "record" || asCollection(v) !== undefined) return constant("object");
  return constants(["string", "number", "boolean", "object", "undefined", "function"]);
}
