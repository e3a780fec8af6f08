import type { JsonType } from "../model/index.js";
import type { Json } from "../model/index.js";

/** The JSON type of a value, as `type` constraints name it. */
export function jsonTypeOf(value: Json): JsonType {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value as "string" | "number" | "boolean" | "object";
}
