/**
 * The globals an agent program may use, as a lib of our own (the compiler runs with `noLib`).
 * This file is an allowlist: what is not declared here is a type error. It declares no `eval`,
 * `Function` constructor, `Proxy`, `Reflect`, `Symbol` value, `globalThis` or host objects, and no
 * member returns `any`.
 */
export const sandboxLib = `
interface Object {}
interface Function {}
interface CallableFunction extends Function {}
interface NewableFunction extends Function {}
interface IArguments { readonly length: number }
interface RegExp { test(text: string): boolean }
interface Boolean {}
interface TemplateStringsArray extends ReadonlyArray<string> { readonly raw: readonly string[] }
interface SymbolConstructor { readonly iterator: unique symbol; readonly asyncIterator: unique symbol }
interface IteratorYieldResult<T> { done?: false; value: T }
interface IteratorReturnResult<R> { done: true; value: R }
type IteratorResult<T, R = unknown> = IteratorYieldResult<T> | IteratorReturnResult<R>;
// Three type parameters, as the compiler expects of these globals (or it iterates only arrays, not strings).
interface Iterator<T, R = unknown, N = unknown> { next(...args: [] | [N]): IteratorResult<T, R> }
interface Iterable<T, R = unknown, N = unknown> { [Symbol.iterator](): Iterator<T, R, N> }
interface IterableIterator<T, R = unknown, N = unknown> extends Iterator<T, R, N> { [Symbol.iterator](): IterableIterator<T, R, N> }
declare var Symbol: SymbolConstructor;

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

interface String {
  readonly length: number;
  at(index: number): string | undefined;
  charAt(pos: number): string;
  charCodeAt(index: number): number;
  concat(...strings: string[]): string;
  endsWith(searchString: string, endPosition?: number): boolean;
  includes(searchString: string, position?: number): boolean;
  indexOf(searchString: string, position?: number): number;
  lastIndexOf(searchString: string, position?: number): number;
  localeCompare(that: string): number;
  match(regexp: RegExp): string[] | null;
  padEnd(maxLength: number, fillString?: string): string;
  padStart(maxLength: number, fillString?: string): string;
  repeat(count: number): string;
  replace(searchValue: string | RegExp, replaceValue: string): string;
  replaceAll(searchValue: string | RegExp, replaceValue: string): string;
  slice(start?: number, end?: number): string;
  split(separator: string | RegExp, limit?: number): string[];
  startsWith(searchString: string, position?: number): boolean;
  substring(start: number, end?: number): string;
  toLowerCase(): string;
  toUpperCase(): string;
  trim(): string;
  trimEnd(): string;
  trimStart(): string;
  readonly [index: number]: string;
  [Symbol.iterator](): IterableIterator<string>;
}
interface StringConstructor {
  (value?: unknown): string;
  fromCharCode(...codes: number[]): string;
}
declare var String: StringConstructor;

interface Number {
  toFixed(fractionDigits?: number): string;
  toString(radix?: number): string;
}
interface NumberConstructor {
  (value?: unknown): number;
  isFinite(value: unknown): boolean;
  isInteger(value: unknown): boolean;
  isNaN(value: unknown): boolean;
  parseFloat(text: string): number;
  parseInt(text: string, radix?: number): number;
  readonly MAX_SAFE_INTEGER: number;
}
declare var Number: NumberConstructor;
interface BooleanConstructor { (value?: unknown): boolean }
declare var Boolean: BooleanConstructor;
declare var NaN: number;
declare var Infinity: number;
declare function parseInt(text: string, radix?: number): number;
declare function parseFloat(text: string): number;
declare function isNaN(value: number): boolean;
declare function encodeURIComponent(value: string | number | boolean): string;
declare function decodeURIComponent(value: string): string;

interface ReadonlyArray<T> {
  readonly length: number;
  at(index: number): T | undefined;
  concat(...items: (T | ReadonlyArray<T>)[]): T[];
  every(predicate: (value: T, index: number) => unknown): boolean;
  filter(predicate: (value: T, index: number) => unknown): T[];
  find(predicate: (value: T, index: number) => unknown): T | undefined;
  findIndex(predicate: (value: T, index: number) => unknown): number;
  flat(): T extends ReadonlyArray<infer U> ? U[] : T[];
  flatMap<U>(callback: (value: T, index: number) => U | ReadonlyArray<U>): U[];
  forEach(callback: (value: T, index: number) => void): void;
  includes(searchElement: T): boolean;
  indexOf(searchElement: T): number;
  join(separator?: string): string;
  map<U>(callback: (value: T, index: number) => U): U[];
  reduce<U>(callback: (previous: U, current: T, index: number) => U, initial: U): U;
  slice(start?: number, end?: number): T[];
  some(predicate: (value: T, index: number) => unknown): boolean;
  entries(): IterableIterator<[number, T]>;
  keys(): IterableIterator<number>;
  values(): IterableIterator<T>;
  readonly [index: number]: T;
  [Symbol.iterator](): IterableIterator<T>;
}
interface Array<T> extends ReadonlyArray<T> {
  [index: number]: T;
  pop(): T | undefined;
  push(...items: T[]): number;
  reverse(): T[];
  shift(): T | undefined;
  sort(compare?: (a: T, b: T) => number): this;
  splice(start: number, deleteCount?: number, ...items: T[]): T[];
  unshift(...items: T[]): number;
}
interface ArrayConstructor {
  isArray(value: unknown): value is unknown[];
  from<T>(items: Iterable<T> | ArrayLike<T>): T[];
  of<T>(...items: T[]): T[];
}
interface ArrayLike<T> { readonly length: number; readonly [index: number]: T }
declare var Array: ArrayConstructor;

interface ObjectConstructor {
  keys(o: object): string[];
  values<T>(o: { [key: string]: T }): T[];
  entries<T>(o: { [key: string]: T }): [string, T][];
  fromEntries<T>(entries: Iterable<readonly [string, T]>): { [key: string]: T };
  freeze<T>(o: T): Readonly<T>;
}
declare var Object: ObjectConstructor;

interface PromiseLike<T> {
  then<R1 = T, R2 = never>(onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null, onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null): PromiseLike<R1 | R2>;
}
interface Promise<T> {
  then<R1 = T, R2 = never>(onfulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null, onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null): Promise<R1 | R2>;
  catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<T | R>;
  finally(onfinally?: (() => void) | null): Promise<T>;
}
interface PromiseConstructor {
  all<T extends readonly unknown[] | []>(values: T): Promise<{ -readonly [P in keyof T]: Awaited<T[P]> }>;
  allSettled<T extends readonly unknown[] | []>(values: T): Promise<{ -readonly [P in keyof T]: { status: "fulfilled" | "rejected"; value?: Awaited<T[P]>; reason?: unknown } }>;
  resolve(): Promise<void>;
  resolve<T>(value: T): Promise<Awaited<T>>;
  reject<T = never>(reason?: unknown): Promise<T>;
}
declare var Promise: PromiseConstructor;

interface Error { name: string; message: string }
interface ErrorConstructor { new (message?: string): Error; (message?: string): Error }
declare var Error: ErrorConstructor;
declare var TypeError: ErrorConstructor;
declare var RangeError: ErrorConstructor;

interface Date {
  getTime(): number;
  toISOString(): string;
  getFullYear(): number;
  getMonth(): number;
  getDate(): number;
  getDay(): number;
  getHours(): number;
  getMinutes(): number;
}
interface DateConstructor { new (value?: number | string): Date; now(): number }
declare var Date: DateConstructor;

interface Math {
  abs(x: number): number;
  ceil(x: number): number;
  floor(x: number): number;
  max(...values: number[]): number;
  min(...values: number[]): number;
  random(): number;
  round(x: number): number;
  trunc(x: number): number;
}
declare var Math: Math;

interface JSON {
  parse(text: string): unknown;
  stringify(value: unknown, replacer?: null, space?: string | number): string;
}
declare var JSON: JSON;

interface Console { log(...data: unknown[]): void; error(...data: unknown[]): void }
declare var console: Console;
`;
