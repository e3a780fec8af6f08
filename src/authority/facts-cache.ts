import { programBytes } from "../model/index.js";
import type { ProgramInput } from "../app/index.js";
import type { Facts } from "../model/index.js";

/** Program texts whose sha256 is remembered. */
const RECENT_SOURCES = 8;

/**
 * Facts by (program sha256, manifests hash, analyzer version): the same bytes analyzed against
 * the same manifests by the same analyzer give the same facts, so a repeated program skips the
 * analysis. Decisions are never cached: the policy decides every submission anew. Concurrent
 * submissions of one program share one analysis. Least recently used entries go first; facts
 * refused for running out of time are not kept (on a less busy moment the program may fit).
 */
export class FactsCache {
  readonly #max: number;
  readonly #entries = new Map<string, Promise<Facts>>();
  readonly #recent: { source: string; sha256: string }[] = []; // most recent first
  #lastKey: string | undefined; // the entry used last is already last in the map

  constructor(max = 1000) {
    this.#max = max;
  }

  get size(): number {
    return this.#entries.size;
  }

  async facts(
    program: ProgramInput,
    context: { manifests: string; analyzer: string },
    analyze: (p: ProgramInput) => Promise<Facts>,
  ): Promise<Facts> {
    const sha256 = this.#sha256(program.source);
    // The entry (any text) goes last: what precedes it is hex, a version, and "-" or the budget's JSON, each of which
    // ends where it ends.
    const budget = program.budget === undefined ? "-" : JSON.stringify(program.budget);
    const key = `${sha256}:${context.manifests}:${context.analyzer}:${budget}:${program.entry}`;
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      entry = analyze(program);
      this.#entries.set(key, entry);
      entry.then(
        (facts) => {
          if (facts.diagnostics.some((d) => d.code === "analysis_budget_exceeded")) this.#entries.delete(key);
        },
        () => this.#entries.delete(key),
      );
      if (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value!);
    } else if (key !== this.#lastKey) {
      this.#entries.delete(key); // most recently used goes last
      this.#entries.set(key, entry);
    }
    this.#lastKey = key;
    const facts = await entry;
    return facts.program.entry === program.entry
      ? facts
      : { ...facts, program: { ...facts.program, entry: program.entry } };
  }

  /**
   * The program's sha256, remembered for the texts submitted last: comparing a new text with an
   * equal one costs a fraction of encoding and hashing it again (a different one mostly differs
   * in length). Bytes are hashed every time.
   */
  #sha256(source: ProgramInput["source"]): string {
    if (typeof source !== "string") return programBytes(source).sha256;
    const i = this.#recent.findIndex((r) => r.source === source);
    if (i === 0) return this.#recent[0]!.sha256;
    const known = i < 0 ? { source, sha256: programBytes(source).sha256 } : this.#recent.splice(i, 1)[0]!;
    this.#recent.unshift(known);
    if (this.#recent.length > RECENT_SOURCES) this.#recent.pop();
    return known.sha256;
  }
}
