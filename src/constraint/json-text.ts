import { deepFreeze, MARSHAL_LIMITS, type Json } from "../model/index.js";
import { memoizeString } from "./string-memo.js";

/** What a `json` check reads from a string: its value, or why it has none. */
export type JsonText =
  | { ok: true; value: Json }
  | { ok: false; why: "too_long" | "malformed" | "duplicate_key" | "too_deep" };

/**
 * A string's JSON value, under the bounds of a trusted call's arguments (no longer, no deeper).
 * A text that names one key twice in an object has no value here: parsers disagree on which
 * occurrence counts (JSON.parse keeps the last, others the first), so a check could read one
 * recipient while the server reads another. Keys are compared as JSON reads them, escapes
 * decoded (`"\u0074o"` is `to`).
 */
export function readJsonText(text: string): JsonText {
  if (text.length > MARSHAL_LIMITS.maxChars) return TOO_LONG;
  let value: Json;
  try {
    value = JSON.parse(text) as Json;
  } catch {
    return MALFORMED;
  }
  const problem = structureProblem(text);
  return problem ?? deepFreeze({ ok: true, value });
}

/** The same, remembered for the last few texts: every rule's `json` key and every guard read one body once. */
export const jsonTextOf = memoizeString(readJsonText, 8, MARSHAL_LIMITS.maxChars);

const TOO_LONG: JsonText = Object.freeze({ ok: false, why: "too_long" });
const MALFORMED: JsonText = Object.freeze({ ok: false, why: "malformed" });
const DUPLICATE: JsonText = Object.freeze({ ok: false, why: "duplicate_key" });
const TOO_DEEP: JsonText = Object.freeze({ ok: false, why: "too_deep" });

/**
 * Duplicate keys and nesting in a text JSON.parse accepted, so every string is closed and every
 * bracket matched. One pass: a string followed by `:` is a key of the innermost object.
 */
function structureProblem(text: string): JsonText | undefined {
  const open: (Set<string> | null)[] = []; // per open bracket: an object's keys so far, null for a list
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === QUOTE) {
      let end = i + 1;
      while (text.charCodeAt(end) !== QUOTE) end += text.charCodeAt(end) === BACKSLASH ? 2 : 1;
      let next = end + 1;
      while (WHITESPACE.has(text.charCodeAt(next))) next++;
      if (text.charCodeAt(next) === COLON) {
        const keys = open.at(-1)!;
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (keys.has(key)) return DUPLICATE;
        keys.add(key);
      }
      i = end;
    } else if (ch === OPEN_OBJECT || ch === OPEN_LIST) {
      open.push(ch === OPEN_OBJECT ? new Set() : null);
      if (open.length > MARSHAL_LIMITS.maxDepth) return TOO_DEEP;
    } else if (ch === CLOSE_OBJECT || ch === CLOSE_LIST) {
      open.pop();
    }
  }
  return undefined;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_LIST = 0x5b;
const CLOSE_LIST = 0x5d;
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
