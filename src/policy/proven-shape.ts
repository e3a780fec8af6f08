import { canonicalJson } from "../constraint/index.js";
import type { AbstractValue } from "../model/abstract.js";
import type { ValueConstraint } from "../model/constraint.js";
import type { Json } from "../model/json.js";

/**
 * The tightest constraint that every call's value satisfies, from the values alone: `{ in: [...] }`
 * when all are constants; partly known strings add `{ glob: "prefix*suffix" }`, but only when
 * the glob means exactly that (no `*`, `?` or case-folding `@` in the known parts) and says
 * something (not a bare `*`), joined by
 * `any`. For a list input it describes the elements, as a constraint on a list applies to each.
 * Undefined when some value is not bounded that way.
 */
export function provenShape(values: (AbstractValue | undefined)[], isList: boolean): ValueConstraint | undefined {
  const constants: Json[] = [];
  const globs: string[] = [];
  for (const value of values) {
    const parts = isList ? elementsOf(value) : value === undefined ? undefined : [value];
    if (parts === undefined) return undefined;
    for (const part of parts) {
      if (part.kind === "const") constants.push(...part.values);
      else if (part.kind === "string" && part.prefix + part.suffix !== "" && !/[*?@]/.test(part.prefix + part.suffix)) globs.push(`${part.prefix}*${part.suffix}`);
      else return undefined;
    }
  }
  const unique = [...new Map(constants.map((x) => [canonicalJson(x), x])).values()];
  const shapes: ValueConstraint[] = [...(unique.length > 0 ? [{ in: unique }] : []), ...[...new Set(globs)].map((glob) => ({ glob }))];
  return shapes.length <= 1 ? shapes[0] : { any: shapes };
}

/** What the elements of a list value can be; a constant list contributes its members. */
function elementsOf(value: AbstractValue | undefined): AbstractValue[] | undefined {
  if (value?.kind === "array") return [value.element];
  if (value?.kind !== "const" || !value.values.every(Array.isArray)) return undefined;
  return [{ kind: "const", values: (value.values as Json[][]).flat() }];
}
