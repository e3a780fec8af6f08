import type { z } from "zod";
import { deepFreeze } from "../model/index.js";
import { parseInput } from "./parse-input.js";

/**
 * Values checked against a schema, remembered by their JSON text: the store keeps JSON, so what
 * it vouches for is the text. A miss checks `JSON.parse(text)` (not the caller's object, which
 * may hold what JSON drops), so a hit answers exactly what a miss would have: the same text
 * always parses to the same value. The authority submits an equal policy decision for every
 * submission of one program; checking it costs more than the rest of the store's work for the
 * submission. Least recently used texts go first once their total length passes `maxChars`.
 */
export class CheckedJson<S extends z.ZodType> {
  readonly #schema: S;
  readonly #what: string;
  readonly #maxChars: number;
  readonly #entries = new Map<string, { value: z.infer<S>; json: string }>();
  // by the very object, for values nothing can change
  readonly #frozen = new WeakMap<object, { value: z.infer<S>; json: string }>();
  #chars = 0;

  constructor(schema: S, what: string, maxChars = 4_000_000) {
    this.#schema = schema;
    this.#what = what;
    this.#maxChars = maxChars;
  }

  /**
   * The checked value (frozen: hits share it) and its JSON as stored. A deeply frozen object of
   * plain JSON data is answered by identity the next time (it cannot have changed, so its text
   * is the same): the authority hands in one frozen decision object per distinct decision text.
   */
  check(raw: unknown): { value: z.infer<S>; json: string } {
    const known = typeof raw === "object" && raw !== null ? this.#frozen.get(raw) : undefined;
    if (known !== undefined) return known;
    const checked = this.#checkText(raw);
    if (typeof raw === "object" && raw !== null && frozenJson(raw)) this.#frozen.set(raw, checked);
    return checked;
  }

  #checkText(raw: unknown): { value: z.infer<S>; json: string } {
    const text = JSON.stringify(raw) as string | undefined; // undefined for undefined, a function, a symbol
    if (text === undefined) return this.#parse(raw);
    const known = this.#entries.get(text);
    if (known !== undefined) {
      this.#entries.delete(text); // most recently used goes last
      this.#entries.set(text, known);
      return known;
    }
    const checked = this.#parse(JSON.parse(text));
    this.#entries.set(text, checked);
    this.#chars += text.length + checked.json.length;
    for (const [old, entry] of this.#entries) {
      if (this.#chars <= this.#maxChars) break;
      this.#entries.delete(old);
      this.#chars -= old.length + entry.json.length;
    }
    return checked;
  }

  #parse(raw: unknown): { value: z.infer<S>; json: string } {
    const value = deepFreeze(parseInput(this.#schema, raw, this.#what));
    return { value, json: JSON.stringify(value) };
  }
}

/**
 * Plain JSON data (objects, arrays, strings, finite numbers, booleans, null), frozen all the way down: nothing can
 * change it any more.
 */
export function frozenJson(value: unknown): boolean {
  if (value === null || typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  if (typeof value !== "object" || !Object.isFrozen(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== (Array.isArray(value) ? Array.prototype : Object.prototype) && proto !== null) return false;
  // data properties only: a getter could answer something else each time
  return Object.values(Object.getOwnPropertyDescriptors(value)).every(
    (d) => !d.enumerable || ("value" in d && frozenJson(d.value)),
  );
}
