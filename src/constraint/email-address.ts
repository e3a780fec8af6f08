import type { Json } from "../model/index.js";
import { jsonEqual } from "./canonical-json.js";
import { memoizeString } from "./string-memo.js";
import { isShapeMember } from "./string-shape.js";

/**
 * Email addresses in the constraint language. A string operand holding `@` (of `eq`, `in`,
 * `not_in`, `glob`) is an address or an address pattern, and a string value is compared with it
 * in canonical form: ASCII letters in lower case, one trailing dot dropped. Domains ignore case
 * and `rival.com.` is the same domain as `rival.com`; the providers countersign sends through
 * ignore the case of local parts, and the email connector sends every address in this same form,
 * so the mailbox a constraint matched is the mailbox the mail goes to. Whitespace is not trimmed:
 * no plain address holds any, and the connector refuses such an address rather than guess.
 */
export function isAddress(text: string): boolean {
  return text.includes("@");
}

/** Remembered per string: a policy's addresses and a program's are compared again for every rule. */
export const canonicalAddress: (text: string) => string = memoizeString((text) => foldAscii(text.endsWith(".") ? text.slice(0, -1) : text));

/** ASCII-only lower case: keeps the string's length, unlike toLowerCase on some non-ASCII letters. */
export function foldAscii(text: string): string {
  return UPPER.test(text) ? text.replace(UPPER_ALL, (c) => c.toLowerCase()) : text;
}

const UPPER = /[A-Z]/;
const UPPER_ALL = /[A-Z]/g;

/**
 * Whether `value` is the operand of `eq`/`in`/`not_in`: an address operand matches a string with
 * the same canonical form, anything else by deep JSON equality.
 */
export function sameValue(operand: Json, value: Json): boolean {
  if (typeof operand === "string" && isAddress(operand)) return typeof value === "string" && canonicalAddress(value) === canonicalAddress(operand);
  return jsonEqual(value, operand);
}

/**
 * Partly known strings (prefix, suffix) whose members include the canonical form of every string
 * starting with `prefix` and ending with `suffix`: one for the strings without a trailing dot, one
 * for those with one (the dot dropped; its prefix loses a final dot, which such a string may be).
 * Over-approximate, so a verdict that holds for every member of these holds for the canonical forms.
 */
export function canonicalShapes(prefix: string, suffix: string): { prefix: string; suffix: string }[] {
  const shapes: { prefix: string; suffix: string }[] = [];
  if (!suffix.endsWith(".")) shapes.push({ prefix: foldAscii(prefix), suffix: foldAscii(suffix) });
  if (suffix === "" || suffix.endsWith(".")) {
    shapes.push({ prefix: foldAscii(prefix.endsWith(".") ? prefix.slice(0, -1) : prefix), suffix: foldAscii(suffix.slice(0, -1)) });
  }
  return shapes;
}

/** Whether some string starting with `prefix` and ending with `suffix` is the operand `x` (for an address: in canonical form). */
export function shapeMayBe(x: string, prefix: string, suffix: string): boolean {
  if (!isAddress(x)) return isShapeMember(x, prefix, suffix);
  const canonical = canonicalAddress(x);
  return canonicalShapes(prefix, suffix).some((s) => isShapeMember(canonical, s.prefix, s.suffix));
}
