import { deepFreeze } from "../model/index.js";

/**
 * Values by their JSON text, parsed and frozen once: the decision thread answers a repeated
 * program's decision as equal texts, and handing back the same frozen object lets the
 * store check it once (it remembers what it checked by object). Least recently used go first.
 */
export class ParsedJson<T> {
  readonly #max: number;
  readonly #entries = new Map<string, T>();
  #last: { text: string; value: T } | undefined;

  constructor(max = 1000) {
    this.#max = max;
  }

  parse(text: string): T {
    // The text parsed last first: comparing equal texts costs less than hashing one for the map.
    if (text === this.#last?.text) return this.#last.value;
    let value = this.#entries.get(text);
    if (value === undefined) {
      value = deepFreeze(JSON.parse(text) as T);
      if (this.#entries.size >= this.#max) this.#entries.delete(this.#entries.keys().next().value!);
    } else this.#entries.delete(text); // most recently used goes last
    this.#entries.set(text, value);
    this.#last = { text, value };
    return value;
  }
}
