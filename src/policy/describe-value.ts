import type { AbstractValue, CountRange } from "../model/abstract.js";

/** A short plain-language picture of what the analysis knows about a value. */
export function describeValue(v: AbstractValue): string {
  switch (v.kind) {
    case "const":
      return v.values.length === 1 ? JSON.stringify(v.values[0]) : `one of ${v.values.map((x) => JSON.stringify(x)).join(", ")}`;
    case "string": {
      const known = [v.prefix === "" ? "" : `starting ${JSON.stringify(v.prefix)}`, v.suffix === "" ? "" : `ending ${JSON.stringify(v.suffix)}`];
      const shape = known.filter(Boolean).join(" and ");
      const from = v.provenance.length === 0 ? "" : ` (${sources(v.provenance)})`;
      return shape === "" ? `any string${from}` : `a string ${shape}${from}`;
    }
    case "array":
      return `a list of ${describeCount(v.length)} × ${describeValue(v.element)}`;
    case "record":
      return `{ ${Object.entries(v.fields).map(([k, f]) => `${k}: ${describeValue(f)}`).join(", ")} }`;
    case "unknown":
      return v.provenance.length === 0 ? "unknown" : `unknown (${sources(v.provenance)})`;
  }
}

export function describeCount(range: CountRange): string {
  if (range.max === null) return `${range.min} or more`;
  return range.min === range.max ? `${range.min}` : `${range.min}..${range.max}`;
}

function sources(provenance: { source: string; untrusted: boolean }[]): string {
  return provenance.map((p) => (p.untrusted ? `${p.source}, untrusted` : p.source)).join("; ");
}
