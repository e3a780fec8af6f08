import type { Json } from "../model/json.js";

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
  return a === b || canonicalJson(a) === canonicalJson(b);
}
