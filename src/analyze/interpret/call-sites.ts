import type { ts } from "../compile/typescript.js";
import type { AbstractValue, Provenance } from "../../model/index.js";
import type { LoadedAction } from "../../manifest/index.js";
import { join, unknown } from "../domain/lattice.js";
import type { Frames } from "./frames.js";
import type { Influence } from "./influence.js";

/**
 * One trusted call site as the interpreter saw it: its action, the join of its arguments over
 * every visit, and the sources that had influenced control by then (see Influence).
 */
export interface SiteRecord {
  action: LoadedAction;
  args: Record<string, AbstractValue>;
  influence: Provenance[];
  /** Recorded inside a function that escaped: it may run at any later time, under any influence. */
  escaped: boolean;
}

/** The trusted call sites the interpretation reached, each with what it was called with and under which influence. */
export class CallSites {
  readonly #records = new Map<ts.CallExpression, SiteRecord>();

  readonly #influence: Influence;
  readonly #frames: Frames;

  constructor(influence: Influence, frames: Frames) {
    this.#influence = influence;
    this.#frames = frames;
  }

  get(call: ts.CallExpression): SiteRecord | undefined {
    return this.#records.get(call);
  }

  /** One visit of a trusted call site: its arguments join the site's record. */
  record(call: ts.CallExpression, action: LoadedAction, args: Record<string, AbstractValue>): void {
    const seen = this.#records.get(call);
    const escaped = this.#frames.insideEscaped();
    // Influence only grows, so the latest visit's includes every earlier one's.
    if (seen === undefined) {
      this.#records.set(call, { action, args, influence: this.#influence.soFar(), escaped });
      return;
    }
    seen.influence = this.#influence.soFar();
    seen.escaped ||= escaped;
    const merged: Record<string, AbstractValue> = {};
    for (const key of new Set([...Object.keys(seen.args), ...Object.keys(args)])) {
      const a = seen.args[key];
      const b = args[key];
      merged[key] = a !== undefined && b !== undefined ? join(a, b) : unknown("an argument given on some calls only");
    }
    seen.args = merged;
  }

  /** A site ran again in a later iteration: what influenced that iteration influences it too. */
  revisited(call: ts.CallExpression): void {
    const site = this.#records.get(call);
    if (site !== undefined) site.influence = this.#influence.soFar();
  }

  /** What influenced a call site: an escaped function's calls may run after anything the analysis saw. */
  influenceOf(site: SiteRecord): Provenance[] {
    return site.escaped ? this.#influence.soFar() : site.influence;
  }
}
