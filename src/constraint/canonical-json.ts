import type { Json } from "../model/index.js";

/** JSON text with object keys sorted, so that equal values have equal text. */
export function canonicalJson(value: Json): string {
  // Written piece by piece: the policy stage keys and compares constraints with it on every decision.
  if (typeof value === "string") return JSON.stringify(value);
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) {
    let text = "[";
    // `?? ""`: what join wrote for a member JSON has no text for (undefined), kept for the hashes built on this.
    for (let i = 0; i < value.length; i++) text += (i === 0 ? "" : ",") + (canonicalJson(value[i]!) ?? "");
    return `${text}]`;
  }
  const keys = Object.keys(value).sort();
  let text = "{";
  for (let i = 0; i < keys.length; i++)
    text += `${i === 0 ? "" : ","}${JSON.stringify(keys[i])}:${canonicalJson(value[keys[i]!]!)}`;
  return `${text}}`;
}

/**
 * Deep JSON equality: same type, same members, key order ignored — exactly when the canonical
 * texts are equal, without writing them (numbers JSON cannot keep, NaN and the infinities, are
 * written as null, so inside a structure they equal null and each other).
 */
export function jsonEqual(a: Json, b: Json): boolean {
  // Scalars compare by value (the common case: an address in a list); only structures go deep.
  if (a === null || typeof a !== "object" || b === null || typeof b !== "object") return a === b;
  return a === b || sameStructure(a, b);
}

function sameStructure(a: Json[] | { [key: string]: Json }, b: Json[] | { [key: string]: Json }): boolean {
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameMember(a[i]!, b[i]!)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) if (!Object.hasOwn(b, key) || !sameMember(a[key]!, b[key]!)) return false;
  return true;
}

function sameMember(a: Json, b: Json): boolean {
  if (a === b) return true;
  if (a !== null && typeof a === "object" && b !== null && typeof b === "object") return sameStructure(a, b);
  // Unequal scalars: only the numbers written as null can still have one text.
  return (typeof a === "number" || typeof b === "number") && JSON.stringify(a) === JSON.stringify(b);
}
