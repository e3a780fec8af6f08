/**
 * What a program may use, as data the lockdown is built from: the global names, and per intrinsic
 * its own members. Intrinsics are named by path from the global object (`String.prototype`) or,
 * when no global reaches them, as `%Name%` (`%RegExpPrototype%`); symbol-keyed members are written
 * `@@iterator` for `Symbol.iterator`.
 */
export interface SandboxAllowlist {
  globals: readonly string[];
  members: Readonly<Record<string, readonly string[]>>;
}

/**
 * The analyzer's allowlist (src/analyze/sandbox-lib.ts), member for member. This constant is the
 * one place where the shared environment allowlist module plugs in: once it exists, derive this
 * value from it and the agreement test keeps both in step.
 */
export const PROGRAM_ALLOWLIST: SandboxAllowlist = {
  globals: [
    "Symbol", "String", "Number", "Boolean", "NaN", "Infinity", "parseInt", "parseFloat", "isNaN",
    "encodeURIComponent", "decodeURIComponent", "Array", "Object", "Promise", "Error", "TypeError", "RangeError",
    "Date", "Math", "JSON", "console",
  ],
  members: {
    Symbol: ["iterator", "asyncIterator"],
    String: ["fromCharCode"],
    "String.prototype": [
      "length", "at", "charAt", "charCodeAt", "concat", "endsWith", "includes", "indexOf", "lastIndexOf", "localeCompare",
      "match", "padEnd", "padStart", "repeat", "replace", "replaceAll", "slice", "split", "startsWith", "substring",
      "toLowerCase", "toUpperCase", "trim", "trimEnd", "trimStart", "@@iterator",
    ],
    Number: ["isFinite", "isInteger", "isNaN", "parseFloat", "parseInt", "MAX_SAFE_INTEGER"],
    "Number.prototype": ["toFixed", "toString"],
    Boolean: [],
    "Boolean.prototype": [],
    Array: ["isArray", "from", "of"],
    "Array.prototype": [
      "length", "at", "concat", "every", "filter", "find", "findIndex", "flat", "flatMap", "forEach", "includes", "indexOf",
      "join", "map", "reduce", "slice", "some", "entries", "keys", "values", "@@iterator", "pop", "push", "reverse", "shift",
      "sort", "splice", "unshift",
    ],
    Object: ["keys", "values", "entries", "fromEntries", "freeze"],
    "Object.prototype": [],
    Promise: ["all", "allSettled", "resolve", "reject"],
    "Promise.prototype": ["then", "catch", "finally"],
    Error: [],
    "Error.prototype": ["name", "message"],
    TypeError: [],
    "TypeError.prototype": ["name", "message"],
    RangeError: [],
    "RangeError.prototype": ["name", "message"],
    Date: ["now"],
    "Date.prototype": ["getTime", "toISOString", "getFullYear", "getMonth", "getDate", "getDay", "getHours", "getMinutes"],
    Math: ["abs", "ceil", "floor", "max", "min", "random", "round", "trunc"],
    JSON: ["parse", "stringify"],
    console: ["log", "error"],
    "%FunctionPrototype%": [],
    "%RegExpPrototype%": ["test"],
    "%IteratorPrototype%": ["@@iterator"],
    "%ArrayIteratorPrototype%": ["next"],
    "%StringIteratorPrototype%": ["next"],
  },
};
