/**
 * The one environment of an agent program: every global, namespace member and prototype method a
 * program may use, as data. The analyzer's lib is generated from it (declarations.ts), the
 * analyzer computes on constants exactly the members marked `exact`, and a runner builds its
 * realm from it (harden.ts): everything not listed here is deleted and the rest frozen before the
 * program runs. This module depends on nothing, so that a sandbox can import it without the analyzer.
 */

/** One own property of a global, a namespace or a prototype. */
export interface Member {
  /** The property name; "@@iterator" and the like name well-known symbols. */
  name: string;
  /**
   * Its TypeScript declaration, as an interface member. Absent: an internal member, kept at run
   * time because the built-ins themselves use it (String(x) calls toString, a regexp's @@replace
   * reads its flags), but not declared, so a program that names it does not type-check.
   */
  declaration?: string;
  /** The interface that declares it when not the owner's own (Array methods that read are ReadonlyArray's). */
  in?: string;
  /** The analyzer computes it exactly by running the real built-in when every input is a constant. */
  exact?: boolean;
  /** It changes its receiver in place (the array mutators; Map's set, Set's add, delete and clear). */
  mutates?: boolean;
}

/** An object of the environment: its TypeScript interface and its members. */
export interface Shape {
  interface: string;
  /** Call and construct signatures of the interface, e.g. `(value?: unknown): string` (types only). */
  signatures?: string[];
  members: Member[];
}

export interface Global {
  name: string;
  /** How the lib declares it, e.g. `declare var String: StringConstructor;`. */
  declaration: string;
  /** Declared for types only (`[Symbol.iterator]` in interfaces): absent at run time, refused as a value. */
  typesOnly?: true;
  /** A function global: the analyzer computes it exactly on constants. */
  exact?: true;
  /** The global's own members (a namespace's functions, a constructor's statics). */
  statics?: Shape;
  /** The members of `<name>.prototype`. */
  prototype?: Shape;
}

/**
 * An object a program reaches through syntax rather than a global name: function and iterator prototypes, errors the
 * engine throws.
 */
export interface Intrinsic {
  name: string;
  /** How a runner finds it: JavaScript source of an expression, evaluated in the realm before anything is removed. */
  find: string;
  /** Only some engines have it (`find` gives undefined in the others): QuickJS's InternalError. */
  engineSpecific?: true;
  /** The interface its declared members belong to. */
  interface?: string;
  members: Member[];
}

// Members the built-ins use on their own: converting objects to strings and numbers, species lookups.
const convert: Member[] = [{ name: "toString" }, { name: "valueOf" }];
const constructorOf: Member = { name: "constructor" }; // leads to a listed global: what species lookups and await read

/** A member named by its declaration: `at(index: number): ...` is `at`, `readonly length: number` is `length`. */
const member = (declaration: string, extra: Partial<Member> = {}): Member => ({
  name: declaration.replace(/^readonly /, "").replace(/[(<?:].*$/s, ""),
  declaration,
  ...extra,
});
const readonlyArray = (declaration: string, extra: Partial<Member> = {}): Member =>
  member(declaration, { in: "ReadonlyArray<T>", ...extra });

/**
 * The most elements an array method of the environment walks (2^22): past it the method throws a
 * RangeError before it starts (see the array guards in harden.ts). A dense array that long fills
 * a program's default memory already; a longer one is sparse, and walking its holes only burns time.
 */
export const MAX_ARRAY_LENGTH = 2 ** 22;

export const GLOBALS: readonly Global[] = [
  { name: "undefined", declaration: "" }, // a keyword to TypeScript; a non-deletable global at run time
  { name: "NaN", declaration: "declare var NaN: number;" },
  { name: "Infinity", declaration: "declare var Infinity: number;" },
  { name: "parseInt", declaration: "declare function parseInt(text: string, radix?: number): number;", exact: true },
  { name: "parseFloat", declaration: "declare function parseFloat(text: string): number;", exact: true },
  { name: "isNaN", declaration: "declare function isNaN(value: number): boolean;" },
  {
    name: "encodeURIComponent",
    declaration: "declare function encodeURIComponent(value: string | number | boolean): string;",
    exact: true,
  },
  {
    name: "decodeURIComponent",
    declaration: "declare function decodeURIComponent(value: string): string;",
    exact: true,
  },
  {
    name: "Symbol",
    declaration: "declare var Symbol: SymbolConstructor;",
    typesOnly: true,
    statics: {
      interface: "SymbolConstructor",
      members: [member("readonly iterator: unique symbol;"), member("readonly asyncIterator: unique symbol;")],
    },
  },
  {
    name: "Object",
    declaration: "declare var Object: ObjectConstructor;",
    statics: {
      interface: "ObjectConstructor",
      members: [
        member("keys(o: object): string[];", { exact: true }),
        member("values<T>(o: { [key: string]: T }): T[];"),
        member("entries<T>(o: { [key: string]: T }): [string, T][];"),
        member("fromEntries<T>(entries: Iterable<readonly [string, T]>): { [key: string]: T };"),
        member("freeze<T>(o: T): Readonly<T>;"),
      ],
    },
    prototype: { interface: "Object", members: [...convert, constructorOf] },
  },
  {
    name: "String",
    declaration: "declare var String: StringConstructor;",
    exact: true,
    statics: {
      interface: "StringConstructor",
      signatures: ["(value?: unknown): string;"],
      members: [member("fromCharCode(...codes: number[]): string;")],
    },
    prototype: {
      interface: "String",
      members: [
        member("readonly length: number;"),
        member("at(index: number): string | undefined;", { exact: true }),
        member("charAt(pos: number): string;", { exact: true }),
        member("charCodeAt(index: number): number;", { exact: true }),
        member("concat(...strings: string[]): string;", { exact: true }),
        member("endsWith(searchString: string, endPosition?: number): boolean;", { exact: true }),
        member("includes(searchString: string, position?: number): boolean;", { exact: true }),
        member("indexOf(searchString: string, position?: number): number;", { exact: true }),
        member("lastIndexOf(searchString: string, position?: number): number;", { exact: true }),
        member("localeCompare(that: string): number;"),
        member("match(regexp: RegExp): string[] | null;"),
        member("padEnd(maxLength: number, fillString?: string): string;", { exact: true }),
        member("padStart(maxLength: number, fillString?: string): string;", { exact: true }),
        member("repeat(count: number): string;", { exact: true }),
        member("replace(searchValue: string | RegExp, replaceValue: string): string;", { exact: true }),
        member("replaceAll(searchValue: string | RegExp, replaceValue: string): string;", { exact: true }),
        member("slice(start?: number, end?: number): string;", { exact: true }),
        member("split(separator: string | RegExp, limit?: number): string[];", { exact: true }),
        member("startsWith(searchString: string, position?: number): boolean;", { exact: true }),
        member("substring(start: number, end?: number): string;", { exact: true }),
        member("toLowerCase(): string;", { exact: true }),
        member("toUpperCase(): string;", { exact: true }),
        member("trim(): string;", { exact: true }),
        member("trimEnd(): string;", { exact: true }),
        member("trimStart(): string;", { exact: true }),
        { name: "@@iterator", declaration: "[Symbol.iterator](): IterableIterator<string>;" },
        ...convert,
        constructorOf,
      ],
    },
  },
  {
    name: "Number",
    declaration: "declare var Number: NumberConstructor;",
    exact: true,
    statics: {
      interface: "NumberConstructor",
      signatures: ["(value?: unknown): number;"],
      members: [
        member("isFinite(value: unknown): boolean;"),
        member("isInteger(value: unknown): boolean;"),
        member("isNaN(value: unknown): boolean;"),
        member("parseFloat(text: string): number;", { exact: true }),
        member("parseInt(text: string, radix?: number): number;", { exact: true }),
        member("readonly MAX_SAFE_INTEGER: number;"),
      ],
    },
    prototype: {
      interface: "Number",
      members: [
        member("toFixed(fractionDigits?: number): string;"),
        member("toString(radix?: number): string;"),
        { name: "valueOf" },
        constructorOf,
      ],
    },
  },
  {
    name: "Boolean",
    declaration: "declare var Boolean: BooleanConstructor;",
    exact: true,
    statics: { interface: "BooleanConstructor", signatures: ["(value?: unknown): boolean;"], members: [] },
    prototype: { interface: "Boolean", members: [...convert, constructorOf] },
  },
  {
    name: "Array",
    declaration: "declare var Array: ArrayConstructor;",
    statics: {
      interface: "ArrayConstructor",
      members: [
        member("isArray(value: unknown): value is unknown[];", { exact: true }),
        member("from<T>(items: Iterable<T> | ArrayLike<T>): T[];"),
        member("of<T>(...items: T[]): T[];"),
        { name: "@@species" },
      ],
    },
    prototype: {
      interface: "Array<T>",
      members: [
        readonlyArray("readonly length: number;"),
        readonlyArray("at(index: number): T | undefined;", { exact: true }),
        readonlyArray("concat(...items: (T | ReadonlyArray<T>)[]): T[];", { exact: true }),
        readonlyArray("every(predicate: (value: T, index: number) => unknown): boolean;"),
        readonlyArray("filter(predicate: (value: T, index: number) => unknown): T[];"),
        readonlyArray("find(predicate: (value: T, index: number) => unknown): T | undefined;"),
        readonlyArray("findIndex(predicate: (value: T, index: number) => unknown): number;"),
        readonlyArray("flat(): T extends ReadonlyArray<infer U> ? U[] : T[];"),
        readonlyArray("flatMap<U>(callback: (value: T, index: number) => U | ReadonlyArray<U>): U[];"),
        readonlyArray("forEach(callback: (value: T, index: number) => void): void;"),
        readonlyArray("includes(searchElement: T): boolean;", { exact: true }),
        readonlyArray("indexOf(searchElement: T): number;", { exact: true }),
        readonlyArray("join(separator?: string): string;", { exact: true }),
        readonlyArray("map<U>(callback: (value: T, index: number) => U): U[];"),
        readonlyArray("reduce<U>(callback: (previous: U, current: T, index: number) => U, initial: U): U;"),
        readonlyArray("slice(start?: number, end?: number): T[];", { exact: true }),
        readonlyArray("some(predicate: (value: T, index: number) => unknown): boolean;"),
        readonlyArray("entries(): IterableIterator<[number, T]>;"),
        readonlyArray("keys(): IterableIterator<number>;"),
        readonlyArray("values(): IterableIterator<T>;"),
        { name: "@@iterator", declaration: "[Symbol.iterator](): IterableIterator<T>;", in: "ReadonlyArray<T>" },
        member("pop(): T | undefined;", { mutates: true }),
        member("push(...items: T[]): number;", { mutates: true }),
        member("reverse(): T[];", { mutates: true }),
        member("shift(): T | undefined;", { mutates: true }),
        member("sort(compare?: (a: T, b: T) => number): this;", { mutates: true }),
        member("splice(start: number, deleteCount?: number, ...items: T[]): T[];", { mutates: true }),
        member("unshift(...items: T[]): number;", { mutates: true }),
        { name: "toString" }, // String(array) joins it
        constructorOf,
      ],
    },
  },
  {
    name: "Map",
    declaration: "declare var Map: MapConstructor;",
    statics: {
      interface: "MapConstructor",
      signatures: ["new <K = unknown, V = unknown>(entries?: Iterable<readonly [K, V]> | null): Map<K, V>;"],
      members: [],
    },
    prototype: {
      interface: "Map<K, V>",
      members: [
        member("readonly size: number;"),
        member("get(key: K): V | undefined;"),
        member("has(key: K): boolean;"),
        member("forEach(callback: (value: V, key: K) => void): void;"),
        member("keys(): IterableIterator<K>;"),
        member("values(): IterableIterator<V>;"),
        member("entries(): IterableIterator<[K, V]>;"),
        { name: "@@iterator", declaration: "[Symbol.iterator](): IterableIterator<[K, V]>;" },
        member("set(key: K, value: V): this;", { mutates: true }),
        member("delete(key: K): boolean;", { mutates: true }),
        member("clear(): void;", { mutates: true }),
        constructorOf,
      ],
    },
  },
  {
    name: "Set",
    declaration: "declare var Set: SetConstructor;",
    statics: {
      interface: "SetConstructor",
      signatures: ["new <T = unknown>(values?: Iterable<T> | null): Set<T>;"],
      members: [],
    },
    prototype: {
      interface: "Set<T>",
      members: [
        member("readonly size: number;"),
        member("has(value: T): boolean;"),
        member("forEach(callback: (value: T, value2: T) => void): void;"),
        member("keys(): IterableIterator<T>;"),
        member("values(): IterableIterator<T>;"),
        member("entries(): IterableIterator<[T, T]>;"),
        { name: "@@iterator", declaration: "[Symbol.iterator](): IterableIterator<T>;" },
        member("add(value: T): this;", { mutates: true }),
        member("delete(value: T): boolean;", { mutates: true }),
        member("clear(): void;", { mutates: true }),
        constructorOf,
      ],
    },
  },
  {
    name: "Promise",
    declaration: "declare var Promise: PromiseConstructor;",
    statics: {
      interface: "PromiseConstructor",
      members: [
        member(
          "all<T extends readonly unknown[] | []>(values: T): Promise<{ -readonly [P in keyof T]: Awaited<T[P]> }>;",
        ),
        member(
          'allSettled<T extends readonly unknown[] | []>(values: T): Promise<{ -readonly [P in keyof T]: { status: "fulfilled" | "rejected"; value?: Awaited<T[P]>; reason?: unknown } }>;',
        ),
        { name: "resolve", declaration: "resolve(): Promise<void>;\n  resolve<T>(value: T): Promise<Awaited<T>>;" },
        member("reject<T = never>(reason?: unknown): Promise<T>;"),
        { name: "@@species" },
      ],
    },
    prototype: {
      interface: "Promise<T>",
      members: [
        member(
          "then<R1 = T, R2 = never>(onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null, onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null): Promise<R1 | R2>;",
        ),
        member("catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<T | R>;"),
        member("finally(onfinally?: (() => void) | null): Promise<T>;"),
        constructorOf,
      ],
    },
  },
  ...["Error", "TypeError", "RangeError"].map(
    (name): Global => ({
      name,
      declaration: `declare var ${name}: ErrorConstructor;`,
      // Error's own shape is declared once, on Error; the subclasses' prototypes hold their own name and message.
      statics: {
        interface: "ErrorConstructor",
        signatures: name === "Error" ? ["new (message?: string): Error;", "(message?: string): Error;"] : [],
        members: [],
      },
      prototype: {
        interface: "Error",
        members: [
          ...(name === "Error"
            ? [member("name: string;"), member("message: string;"), { name: "toString" }]
            : [{ name: "name" }, { name: "message" }]),
          constructorOf,
        ],
      },
    }),
  ),
  {
    name: "Date",
    declaration: "declare var Date: DateConstructor;",
    statics: {
      interface: "DateConstructor",
      signatures: ["new (value?: number | string): Date;"],
      members: [member("now(): number;")],
    },
    prototype: {
      interface: "Date",
      members: [
        ...[
          "getTime(): number;",
          "toISOString(): string;",
          "getFullYear(): number;",
          "getMonth(): number;",
          "getDate(): number;",
          "getDay(): number;",
          "getHours(): number;",
          "getMinutes(): number;",
        ].map((d) => member(d)),
        // JSON.stringify calls toJSON; `date + ""` and `a - b` go through @@toPrimitive and valueOf.
        { name: "toJSON" },
        { name: "@@toPrimitive" },
        ...convert,
        constructorOf,
      ],
    },
  },
  {
    name: "Math",
    declaration: "declare var Math: Math;",
    statics: {
      interface: "Math",
      members: [
        "abs(x: number): number;",
        "ceil(x: number): number;",
        "floor(x: number): number;",
        "max(...values: number[]): number;",
        "min(...values: number[]): number;",
        "random(): number;",
        "round(x: number): number;",
        "trunc(x: number): number;",
      ].map((d) => member(d, { exact: d !== "random(): number;" })),
    },
  },
  {
    name: "JSON",
    declaration: "declare var JSON: JSON;",
    statics: {
      interface: "JSON",
      members: [
        member("parse(text: string): unknown;"),
        member("stringify(value: unknown, replacer?: null, space?: string | number): string;", { exact: true }),
      ],
    },
  },
  {
    name: "console",
    declaration: "declare var console: Console;",
    statics: {
      interface: "Console",
      members: [member("log(...data: unknown[]): void;"), member("error(...data: unknown[]): void;")],
    },
  },
];

/** Internal members of regexps: String's replace, split and match call these with a regexp argument. */
const regexpInternals = [
  "exec",
  "flags",
  "global",
  "ignoreCase",
  "multiline",
  "dotAll",
  "unicode",
  "unicodeSets",
  "sticky",
  "hasIndices",
  "source",
  "@@match",
  "@@matchAll",
  "@@replace",
  "@@search",
  "@@split",
];

export const INTRINSICS: readonly Intrinsic[] = [
  // Every function's prototype: no call/apply/bind (they would call trusted functions out of sight), no constructor
  // (Function).
  // @@hasInstance cannot be removed (the engine makes it non-configurable); it only answers instanceof.
  {
    name: "Function.prototype",
    find: "Object.getPrototypeOf(function () {})",
    members: [{ name: "toString" }, { name: "@@hasInstance" }],
  },
  { name: "AsyncFunction.prototype", find: "Object.getPrototypeOf(async function () {})", members: [] },
  { name: "GeneratorFunction.prototype", find: "Object.getPrototypeOf(function* () {})", members: [] },
  { name: "AsyncGeneratorFunction.prototype", find: "Object.getPrototypeOf(async function* () {})", members: [] },
  { name: "Generator.prototype", find: "Object.getPrototypeOf(function* () {}).prototype", members: [] },
  { name: "AsyncGenerator.prototype", find: "Object.getPrototypeOf(async function* () {}).prototype", members: [] },
  {
    name: "RegExp.prototype",
    find: "Object.getPrototypeOf(/a/)",
    interface: "RegExp",
    members: [member("test(text: string): boolean;"), ...regexpInternals.map((name) => ({ name }))],
  },
  {
    name: "ArrayIterator.prototype",
    find: "Object.getPrototypeOf([][Symbol.iterator]())",
    members: [{ name: "next" }],
  },
  {
    name: "MapIterator.prototype",
    find: "Object.getPrototypeOf(new Map()[Symbol.iterator]())",
    members: [{ name: "next" }],
  },
  {
    name: "SetIterator.prototype",
    find: "Object.getPrototypeOf(new Set()[Symbol.iterator]())",
    members: [{ name: "next" }],
  },
  {
    name: "StringIterator.prototype",
    find: 'Object.getPrototypeOf(""[Symbol.iterator]())',
    members: [{ name: "next" }],
  },
  {
    name: "Iterator.prototype",
    find: "Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]()))",
    members: [{ name: "@@iterator" }],
  },
  { name: "RegExpStringIterator.prototype", find: 'Object.getPrototypeOf(/a/g[Symbol.matchAll](""))', members: [] },
  // Errors the engine throws (a bad reference, JSON.parse, decodeURIComponent): a caught one is reachable.
  ...["ReferenceError", "SyntaxError", "URIError", "EvalError", "AggregateError"].map(
    (name): Intrinsic => ({
      name: `${name}.prototype`,
      find: `${name}.prototype`,
      members: [{ name: "name" }, { name: "message" }],
    }),
  ),
  // Reached through literals the analyzer refuses (0n) or values no listed built-in returns (symbols): stripped bare
  // all the same.
  { name: "BigInt.prototype", find: "Object.getPrototypeOf(0n)", members: [] },
  { name: "Symbol.prototype", find: "Symbol.prototype", members: [] },
  // The accessor of a strict function's arguments.callee: frozen by the language, a function like any other.
  {
    name: "ThrowTypeError",
    find: 'Object.getOwnPropertyDescriptor((function () { "use strict"; return arguments; })(), "callee").get',
    members: [],
  },
  // Last, so that it names nothing the other engines reach: QuickJS throws an InternalError on a stack overflow or out
  // of memory.
  {
    name: "InternalError.prototype",
    find: 'typeof InternalError === "function" ? InternalError.prototype : undefined',
    engineSpecific: true,
    members: [{ name: "name" }, { name: "message" }],
  },
];

/** Interfaces and types the lib needs with no run-time counterpart of their own. */
export const TYPES = `interface Object {}
interface Function {}
interface CallableFunction extends Function {}
interface NewableFunction extends Function {}
interface IArguments { readonly length: number }
interface TemplateStringsArray extends ReadonlyArray<string> { readonly raw: readonly string[] }
interface IteratorYieldResult<T> { done?: false; value: T }
interface IteratorReturnResult<R> { done: true; value: R }
type IteratorResult<T, R = unknown> = IteratorYieldResult<T> | IteratorReturnResult<R>;
// Three type parameters, as the compiler expects of these globals (or it iterates only arrays, not strings).
interface Iterator<T, R = unknown, N = unknown> { next(...args: [] | [N]): IteratorResult<T, R> }
interface Iterable<T, R = unknown, N = unknown> { [Symbol.iterator](): Iterator<T, R, N> }
interface IterableIterator<T, R = unknown, N = unknown> extends Iterator<T, R, N> { [Symbol.iterator](): IterableIterator<T, R, N> }
interface String { readonly [index: number]: string }
interface ReadonlyArray<T> { readonly [index: number]: T }
interface Array<T> extends ReadonlyArray<T> { [index: number]: T }
interface ArrayLike<T> { readonly length: number; readonly [index: number]: T }
interface PromiseLike<T> {
  then<R1 = T, R2 = never>(onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null, onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null): PromiseLike<R1 | R2>;
}

type Partial<T> = { [P in keyof T]?: T[P] };
type Required<T> = { [P in keyof T]-?: T[P] };
type Readonly<T> = { readonly [P in keyof T]: T[P] };
type Pick<T, K extends keyof T> = { [P in K]: T[P] };
type Record<K extends keyof any, T> = { [P in K]: T };
type Exclude<T, U> = T extends U ? never : T;
type Extract<T, U> = T extends U ? T : never;
type Omit<T, K extends keyof any> = Pick<T, Exclude<keyof T, K>>;
type NonNullable<T> = T & {};
type ReturnType<T extends (...args: never[]) => unknown> = T extends (...args: never[]) => infer R ? R : never;
type Awaited<T> = T extends null | undefined ? T : T extends object & { then(onfulfilled: infer F, ...args: infer _): unknown } ? F extends (value: infer V, ...args: infer _) => unknown ? Awaited<V> : never : T;
`;
