import type { JsonType } from "../model/constraint.js";
import type { Json } from "../model/json.js";

/** The JSON type of a value, as `type` constraints name it. */
export function jsonTypeOf(value: Json): JsonType {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value as "string" | "number" | "boolean" | "object";
}
