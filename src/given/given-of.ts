import { elementPath, fieldPath } from "../constraint/index.js";
import { givenKeys } from "./given-keys.js";
import { searchedTexts } from "./mark-pasted.js";
import { normalizeText } from "./normalize.js";
import {
  HandleDescription,
  type Facts,
  type GivenText,
  type Json,
  type ResultPart,
  type RunOutput,
} from "../model/index.js";

/**
 * The untrusted texts a run's output gives its agent, to be remembered against its later programs.
 * Each string (and number) inside what `main` returned counts by the part of the result it lies in
 * (`facts.result.parts`): an untrusted part's texts are remembered with its ops, a trusted part's
 * are not. A value the parts do not describe (facts from before they were recorded, a shape the
 * analysis did not foresee) counts as untrusted, from every op the program calls. Log lines and an
 * error's message carry no provenance of their own: they count as untrusted, from every op the
 * program calls, unless it calls none (then they are the program's own text). What the run's own
 * program text (`programTexts`) already holds is the agent's own words echoed back (a path it
 * read, named in an error): a text it holds whole is not kept, and its tokens there are marked
 * `own`, which a later program may repeat. Pure.
 */
export function givenOf(
  output: Pick<RunOutput, "value" | "logs" | "thrown">,
  facts: Facts,
  request: string,
  programTexts: readonly string[] = [],
): GivenText[] {
  const ops = [...new Set(facts.effects.map((e) => e.op))].sort();
  const out: GivenText[] = [];
  const written = programTexts.flatMap(searchedTexts);
  const add = (text: string, from: readonly string[]) => {
    if (text.length === 0) return;
    const whole = normalizeText(text);
    if (whole.length > 0 && written.some((w) => w.includes(whole))) return; // the program's own text, echoed
    const own = givenKeys({ text, from: [], request }, NONE).tokens.filter((t) => written.some((w) => w.includes(t)));
    out.push({ text, from: [...from], request, ...(own.length === 0 ? {} : { own }) });
  };
  const parts = facts.result?.parts;
  walk(output.value, "$", (text, path) => {
    const part = parts === undefined ? undefined : partAt(parts, path);
    if (part === undefined) add(text, ops);
    else if (part.untrusted) add(text, part.from);
  });
  if (ops.length > 0) {
    for (const log of output.logs) add(log.text, ops);
    if (output.thrown !== undefined) add(output.thrown.message, ops);
  }
  return out;
}

const NONE: ReadonlySet<string> = new Set();

/**
 * Every string and number inside `value` (object keys too), with the path of the part it lies in,
 * as result parts name them. A handle's description is countersign's own words, not data: skipped.
 */
function walk(value: Json, path: string, visit: (text: string, path: string) => void): void {
  if (typeof value === "string") visit(value, path);
  else if (typeof value === "number") visit(String(value), path);
  else if (Array.isArray(value)) for (const v of value) walk(v, elementPath(path), visit);
  else if (value !== null && typeof value === "object" && !HandleDescription.safeParse(value).success) {
    for (const [k, v] of Object.entries(value)) {
      const at = fieldPath(path, k);
      visit(k, at);
      walk(v, at, visit);
    }
  }
}

/**
 * The part that describes the value at `path`: the one whose path is it or encloses it (a part deeper than the parts go
 * is described as a whole).
 */
function partAt(parts: readonly ResultPart[], path: string): ResultPart | undefined {
  let best: ResultPart | undefined;
  for (const p of parts) {
    if (path === p.path || (path.startsWith(p.path) && (path[p.path.length] === "." || path[p.path.length] === "["))) {
      if (best === undefined || p.path.length > best.path.length) best = p;
    }
  }
  return best;
}
