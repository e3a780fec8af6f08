import { frozenJson } from "../store/index.js";

const texts = new WeakMap<object, string>();

/**
 * JSON.stringify(value), remembered for a value frozen all the way down (it cannot change, so
 * neither can its text). The store hands back one frozen decision object per distinct decision,
 * so a repeated program's answer serializes its decision once instead of for every submission.
 */
export function jsonText(value: object): string {
  let text = texts.get(value);
  if (text !== undefined) return text;
  text = JSON.stringify(value);
  if (frozenJson(value)) texts.set(value, text);
  return text;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * Whether JSON text opens more than `max` arrays and objects at once, read without parsing it:
 * brackets inside strings are text, and a quote ends a string only after an even run of
 * backslashes. Strings are skipped with indexOf, so a body that is mostly one long string costs
 * little. Unbalanced text is answered too (JSON.parse refuses it afterwards).
 */
export function jsonNestedDeeper(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === QUOTE) i = stringEnd(text, i);
    else if (char === OPEN_ARRAY || char === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if (char === CLOSE_ARRAY || char === CLOSE_OBJECT) depth--;
  }
  return false;
}

/** The index of the quote that closes the string opened at `open` (the text's end when none does). */
function stringEnd(text: string, open: number): number {
  let quote = open;
  for (;;) {
    quote = text.indexOf('"', quote + 1);
    if (quote === -1) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
}
