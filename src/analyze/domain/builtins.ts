import type { AbstractValue } from "../../model/index.js";
import type { Json } from "../../model/index.js";
import { asArray, asRecord, constant, constants, derived, join, numeric, provenanceOf, unknown } from "./lattice.js";
import { exactMembers } from "../../environment/index.js";
import { fromJs, truthy } from "./operators.js";
import { isResultView } from "./result-view.js";
import { iterated } from "./values.js";
import { MAX_BUILTIN_COMBINATIONS, MAX_STRING } from "../limits.js";

/**
 * The sandbox's built-in functions and methods. Pure ones are computed exactly when every input is
 * one known constant (running the real built-in on plain data); everything else is unknown,
 * derived from its inputs so that untrusted data stays marked.
 */

// Methods that only read their receiver and constant primitive arguments: `exact` in the environment.
const pureStringMethods = exactMembers("String", "prototype");
const pureArrayMethods = exactMembers("Array", "prototype");
const pureMath = exactMembers("Math", "statics");

/** A JavaScript result as an abstract value: exact when it is JSON we can hold, unknown otherwise. */
function fromResult(value: unknown, source: string): AbstractValue {
  if (typeof value === "string" && value.length > MAX_STRING) return unknown(source);
  if (Array.isArray(value) && value.every((v) => v === null || ["string", "number", "boolean"].includes(typeof v)))
    return constant(value as Json[]);
  return fromJs(value, source);
}

/** Every combination of the inputs' constants, when there are few enough; undefined otherwise. */
function combinations(inputs: AbstractValue[]): Json[][] | undefined {
  let out: Json[][] = [[]];
  for (const input of inputs) {
    if (input.kind !== "const") return undefined;
    out = out.flatMap((prefix) => input.values.map((v) => [...prefix, v]));
    if (out.length > MAX_BUILTIN_COMBINATIONS) return undefined;
  }
  return out;
}

function exactly(inputs: AbstractValue[], source: string, run: (values: Json[]) => unknown): AbstractValue | undefined {
  const all = combinations(inputs);
  if (all === undefined) return undefined;
  try {
    return all.map((values) => fromResult(run(values), source)).reduce(join);
  } catch {
    return unknown(source); // the built-in throws on this input: the program fails there
  }
}

const isPrimitive = (v: Json): boolean => v === null || typeof v !== "object";

/**
 * Past 2^53 engines round parseInt differently (V8 and QuickJS differ in radix 36): only a safe integer is the same
 * everywhere.
 */
function safeParseInt(text: string, radix?: number): number | undefined {
  const n = parseInt(text, radix);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** `receiver.name(...args)` for a built-in method. */
export function callMethod(receiver: AbstractValue, name: string, args: AbstractValue[]): AbstractValue {
  const source = `the result of .${name}()`;
  const primitiveArgs = args.every((a) => a.kind === "const" && a.values.every(isPrimitive));
  // Guard the built-ins that allocate in proportion to an argument.
  const small = args.every(
    (a) => a.kind === "const" && a.values.every((v) => typeof v !== "number" || v <= MAX_STRING),
  );
  if (receiver.kind === "const" && primitiveArgs && small) {
    if (receiver.values.every((v) => typeof v === "string") && pureStringMethods.has(name)) {
      const exact = exactly([receiver, ...args], source, ([r, ...a]) =>
        (String.prototype as unknown as Record<string, (...x: Json[]) => unknown>)[name]!.apply(r, a),
      );
      if (exact !== undefined) return exact;
    }
    if (receiver.values.every(Array.isArray) && pureArrayMethods.has(name)) {
      const exact = exactly([receiver, ...args], source, ([r, ...a]) =>
        (Array.prototype as unknown as Record<string, (...x: Json[]) => unknown>)[name]!.apply(r, a),
      );
      if (exact !== undefined) return exact;
    }
  }
  const array = asArray(receiver);
  if (array !== undefined && (name === "slice" || name === "filter"))
    return { kind: "array", element: array.element, length: { min: 0, max: array.length.max } };
  return derived([receiver, ...args], source);
}

/** A call of a global function or of a member of a global namespace, e.g. `String(x)`, `JSON.stringify(v)`. */
export function callGlobal(name: string, args: AbstractValue[]): AbstractValue {
  const source = `${name}()`;
  const [first] = args;
  const exact = ((): AbstractValue | undefined => {
    if (first === undefined) return undefined;
    switch (name) {
      case "String":
        if (first.kind === "const" && first.values.every(isPrimitive))
          return constants(first.values.map((v) => String(v)));
        // always a string
        return first.kind === "string"
          ? first
          : { kind: "string", prefix: "", suffix: "", provenance: provenanceOf(derived([first], source)) };
      case "Number":
      case "parseInt":
      case "parseFloat":
      case "Number.parseInt":
      case "Number.parseFloat":
      case "encodeURIComponent":
      case "decodeURIComponent": {
        const fns: Record<string, (...a: never[]) => unknown> = {
          Number,
          parseInt: safeParseInt,
          parseFloat,
          "Number.parseInt": safeParseInt,
          "Number.parseFloat": parseFloat,
          encodeURIComponent,
          decodeURIComponent,
        };
        const fn = fns[name]!;
        return args.every((a) => a.kind === "const" && a.values.every(isPrimitive))
          ? exactly(args, source, (v) => fn(...(v as never[])))
          : undefined;
      }
      case "Boolean": {
        const t = truthy(first);
        return t === "maybe" ? constants([true, false]) : constant(t === "yes");
      }
      case "JSON.parse":
        // A part's text parsed lies inside that part: its fields are read on under the part's path.
        return args.length === 1 && isResultView(first) ? first : undefined;
      case "JSON.stringify":
        return first.kind === "const" && args.length === 1
          ? exactly([first], source, ([v]) => JSON.stringify(v))
          : undefined;
      case "Object.keys": {
        const record = asRecord(first);
        return record !== undefined ? constant(Object.keys(record)) : undefined;
      }
      case "Array.from":
        return iterated(first); // a new array with the same elements (a string's code points)
      case "Array.isArray":
        if (asArray(first) !== undefined) return constant(true);
        return first.kind === "record" || (first.kind === "const" && first.values.every((v) => !Array.isArray(v)))
          ? constant(false)
          : undefined;
    }
    if (
      name.startsWith("Math.") &&
      pureMath.has(name.slice(5)) &&
      args.every((a) => a.kind === "const" && a.values.every((v) => typeof v === "number"))
    ) {
      const fn = (Math as unknown as Record<string, (...a: number[]) => number>)[name.slice(5)]!;
      return exactly(args, source, (v) => fn(...(v as number[])));
    }
    return undefined;
  })();
  const result = exact ?? derived(args, source);
  return NUMBER_RESULTS.has(name) || name.startsWith("Math.") ? numeric(result) : result;
}

/** The environment's functions that always return a number (Math's all do). */
const NUMBER_RESULTS = new Set([
  "Number",
  "parseInt",
  "parseFloat",
  "Number.parseInt",
  "Number.parseFloat",
  "Date.now",
]);
