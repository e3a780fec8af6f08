import type { AbstractValue } from "../../../src/model/abstract.js";
import type { Json } from "../../../src/model/json.js";
import { jsonEqual } from "../../../src/constraint/index.js";

/**
 * Concretization membership: is `value` one of the concrete values `abstract` stands for
 * (src/model/abstract.ts)? A record's listed field that the value leaves out is read as null, the
 * way the constraint checks read a declared input a call does not pass; a field the record does
 * not list must be absent.
 */
export function contains(abstract: AbstractValue, value: Json): boolean {
  switch (abstract.kind) {
    case "unknown":
      return true;
    case "const":
      return abstract.values.some((v) => jsonEqual(v, value));
    case "string":
      return typeof value === "string" && value.startsWith(abstract.prefix) && value.endsWith(abstract.suffix);
    case "array":
      return (
        Array.isArray(value) &&
        value.length >= abstract.length.min &&
        (abstract.length.max === null || value.length <= abstract.length.max) &&
        value.every((element) => contains(abstract.element, element))
      );
    case "record": {
      if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
      if (Object.keys(value).some((key) => !Object.hasOwn(abstract.fields, key))) return false;
      return Object.entries(abstract.fields).every(([key, field]) =>
        contains(field, Object.hasOwn(value, key) ? value[key]! : null),
      );
    }
  }
}
