import type { Json } from "../model/index.js";

/** JSON text with object keys sorted, so that equal values have equal text. */
export function canonicalJson(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k]!)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** Deep JSON equality: same type, same members, key order ignored. */
export function jsonEqual(a: Json, b: Json): boolean {
  // Scalars compare by value (the common case: an address in a list); only structures need text.
  if (a === null || typeof a !== "object" || b === null || typeof b !== "object") return a === b;
  return canonicalJson(a) === canonicalJson(b);
}
