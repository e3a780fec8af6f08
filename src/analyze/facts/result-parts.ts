import type { AbstractValue, Provenance, ResultPart } from "../../model/index.js";
import { elementPath, fieldPath } from "../../constraint/index.js";
import { asArray, asRecord, provenanceOf } from "../domain/lattice.js";
import { MAX_RESULT_DEPTH, MAX_RESULT_PARTS } from "../limits.js";

/**
 * The provenance of what `main` returns, part by part: each field of a record, the element of an
 * array, to MAX_RESULT_DEPTH. `influence` is every source that steered control during the run: a
 * value chosen by branching on untrusted data may carry it as surely as a copy does, so it makes
 * every part untrusted (the analysis does not tell which branch chose which part).
 */
export function resultParts(value: AbstractValue, influence: readonly Provenance[]): ResultPart[] {
  const steered = influence.some((p) => p.untrusted);
  const part = (path: string, v: AbstractValue): ResultPart => describe(path, provenanceOf(v), steered);
  const parts: ResultPart[] = [];
  const visit = (path: string, v: AbstractValue, depth: number): void => {
    const fields = depth < MAX_RESULT_DEPTH ? asRecord(v) : undefined;
    const array = depth < MAX_RESULT_DEPTH && fields === undefined ? asArray(v) : undefined;
    if (fields !== undefined && Object.keys(fields).length > 0) {
      for (const [key, field] of Object.entries(fields)) visit(fieldPath(path, key), field, depth + 1);
    } else if (array !== undefined && array.length.max !== 0) visit(elementPath(path), array.element, depth + 1);
    else parts.push(part(path, v));
  };
  visit("$", value, 0);
  return parts.length <= MAX_RESULT_PARTS ? parts : [part("$", value)];
}

function describe(path: string, provenance: readonly Provenance[], steered: boolean): ResultPart {
  const from = [...new Set(provenance.flatMap((p) => (p.op === undefined ? [] : [p.op])))].sort();
  const handles = [...new Set(provenance.flatMap((p) => (p.handle === undefined ? [] : [p.handle])))].sort();
  return {
    path,
    from,
    untrusted: steered || provenance.some((p) => p.untrusted),
    ...(handles.length === 0 ? {} : { handles }),
  };
}
