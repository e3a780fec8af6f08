import type { AbstractValue } from "../model/index.js";
import type { JsonType, ValueConstraint } from "../model/index.js";
import type { Json } from "../model/index.js";
import { canonicalJson } from "./canonical-json.js";
import { jsonTypeOf } from "./json-type.js";

/** Holds of every value: a field the facts know nothing about. */
const ANYTHING: ValueConstraint = { all: [] };

/**
 * The facts as a constraint: one that every member of any of `values` satisfies, as tight as the
 * language says it (receipt grants carry it, so a run cannot leave its facts). Undefined when a
 * value is unknown: then nothing is known to pin.
 * - constants: `in` (exact for scalars and objects);
 * - a partly known string: `prefix` and `suffix`, exact (no glob is ever built from program text);
 * - a record: `fields`, each field by its own facts (`{ all: [] }` for an unknown one);
 * - a list (an array, or constant arrays): `elements` for the element and `min_length`,
 *   `max_length` for the length range.
 * Every non-list is guarded by `type`: on a list, `in` and the rest would check each element and
 * so let a list of the listed values through. Several lists join into one element constraint and
 * the widest length range (wider than the facts only in which lengths go with which elements).
 * Lists mixed with non-lists (which no typed input has: the connector refuses a value of another
 * type) pin only their types: `any` and the leaves would go through a list element by element.
 */
export function constraintOf(values: readonly AbstractValue[]): ValueConstraint | undefined {
  if (values.length === 0 || values.some((v) => v.kind === "unknown")) return undefined;
  const scalars: Json[] = [];
  const others: ValueConstraint[] = [];
  const types = new Set<JsonType>();
  const lists: { elements: AbstractValue[]; min: number; max: number | null }[] = [];
  for (const v of values) {
    if (v.kind === "const") {
      for (const x of v.values) {
        if (Array.isArray(x))
          lists.push({ elements: x.length === 0 ? [] : [{ kind: "const", values: x }], min: x.length, max: x.length });
        else scalars.push(x), types.add(jsonTypeOf(x));
      }
    } else if (v.kind === "array") {
      lists.push({ elements: [v.element], min: v.length.min, max: v.length.max });
    } else if (v.kind === "string") {
      types.add("string");
      others.push(affixes(v.prefix, v.suffix));
    } else if (v.kind === "record") {
      types.add("object");
      others.push({
        fields: Object.fromEntries(Object.entries(v.fields).map(([key, f]) => [key, constraintOf([f]) ?? ANYTHING])),
      });
    }
  }
  const list = lists.length === 0 ? undefined : listConstraint(lists);
  if (list !== undefined) return types.size === 0 ? list : { type: [...types, "array"] };
  const present = scalars.filter((x) => x !== null);
  const alternatives = dedupe([
    ...(present.length < scalars.length ? [{ type: ["null" as const] }] : []),
    ...(present.length > 0 ? [{ in: unique(present) }] : []),
    ...others,
  ]);
  const typed: ValueConstraint = { type: [...types] };
  // A lone bare type is what `typed` says already.
  if (alternatives.length === 1 && "type" in alternatives[0]!) return typed;
  return { all: [typed, alternatives.length === 1 ? alternatives[0]! : { any: alternatives }] };
}

function affixes(prefix: string, suffix: string): ValueConstraint {
  const parts: ValueConstraint[] = [...(prefix === "" ? [] : [{ prefix }]), ...(suffix === "" ? [] : [{ suffix }])];
  return parts.length === 0 ? { type: ["string"] } : parts.length === 1 ? parts[0]! : { all: parts };
}

function listConstraint(lists: { elements: AbstractValue[]; min: number; max: number | null }[]): ValueConstraint {
  const min = Math.min(...lists.map((l) => l.min));
  const max = lists.some((l) => l.max === null) ? null : Math.max(...lists.map((l) => l.max!));
  const elements = lists.flatMap((l) => l.elements);
  // No element at all: every list is empty, which max_length 0 already says.
  const element = elements.length === 0 ? undefined : constraintOf(elements);
  const parts: ValueConstraint[] = [{ type: ["array"] }];
  if (min > 0) parts.push({ min_length: min });
  if (max !== null) parts.push({ max_length: max });
  if (element !== undefined) parts.push({ elements: element });
  return { all: parts };
}

function unique(values: readonly Json[]): Json[] {
  return [...new Map(values.map((x) => [canonicalJson(x), x])).values()];
}

function dedupe(constraints: ValueConstraint[]): ValueConstraint[] {
  return [...new Map(constraints.map((c) => [canonicalJson(c as Json), c])).values()];
}
