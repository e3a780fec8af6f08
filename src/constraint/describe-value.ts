import type { AbstractValue, CountRange, Provenance } from "../model/index.js";

/**
 * What the analysis knows about a value, as a short noun phrase: `"x"`, `one of "a", "b"`,
 * `a string starting "/home" (from loop variable)`, `any string`, `a list of 1..3 items, each
 * "a@x.com"`, `{ to: ... }`, `unknown (from result of email.get_draft, untrusted)`. The one
 * description of abstract values, for the facts (`check`) and for decisions alike.
 */
export function describeValue(v: AbstractValue): string {
  switch (v.kind) {
    case "const":
      return v.values.length === 1 ? JSON.stringify(v.values[0]) : `one of ${v.values.map((x) => JSON.stringify(x)).join(", ")}`;
    case "string": {
      const known = [v.prefix === "" ? "" : `starting ${JSON.stringify(v.prefix)}`, v.suffix === "" ? "" : `ending ${JSON.stringify(v.suffix)}`];
      const shape = known.filter(Boolean).join(" and ");
      return `${shape === "" ? "any string" : `a string ${shape}`}${from(v.provenance)}`;
    }
    case "array":
      return `a list of ${describeCount(v.length)} item${v.length.min === 1 && v.length.max === 1 ? "" : "s"}, each ${describeValue(v.element)}`;
    case "record":
      return `{ ${Object.entries(v.fields).map(([k, f]) => `${k}: ${describeValue(f)}`).join(", ")} }`;
    case "unknown":
      return `unknown${from(v.provenance)}`;
  }
}

/** The same as a predicate after an argument's name: `= "x"` for one constant, `is ...` otherwise. */
export function describeArgument(v: AbstractValue): string {
  return v.kind === "const" && v.values.length === 1 ? `= ${JSON.stringify(v.values[0])}` : `is ${describeValue(v)}`;
}

/** A count or length range: `2`, `0..3`, `1 or more`. */
export function describeCount(range: CountRange): string {
  if (range.max === null) return `${range.min} or more`;
  return range.min === range.max ? `${range.min}` : `${range.min}..${range.max}`;
}

function from(provenance: readonly Provenance[]): string {
  return provenance.length === 0 ? "" : ` (from ${provenance.map((p) => (p.untrusted ? `${p.source}, untrusted` : p.source)).join("; ")})`;
}

/**
 * Where a value comes from, for a person deciding: `result of email.get_draft — untrusted;
 * Date.now()`, or `none` when it has no source at all.
 */
export function describeSources(sources: readonly Provenance[], none: string): string {
  if (sources.length === 0) return none;
  return sources.map((p) => (p.untrusted ? `${p.source} — untrusted` : p.source)).join("; ");
}
