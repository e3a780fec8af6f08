import { wildcardMatch } from "./wildcard.js";

/**
 * A glob is case-sensitive, except that a pattern holding `@` is an email pattern and compares
 * ASCII letters case-insensitively: mail domains ignore case, so a deny rule on `*@rival.com`
 * must catch `eve@RIVAL.com`. Paths and other strings keep their case (`/Home` is not `/home`).
 */
export function globFolds(pattern: string): boolean {
  return pattern.includes("@");
}

/** ASCII-only lower case: keeps the string's length, unlike toLowerCase on some non-ASCII letters. */
export function foldAscii(text: string): string {
  return UPPER.test(text) ? text.replace(UPPER_ALL, (c) => c.toLowerCase()) : text;
}

const UPPER = /[A-Z]/;
const UPPER_ALL = /[A-Z]/g;

export function globMatches(pattern: string, value: string): boolean {
  return globFolds(pattern) ? wildcardMatch(foldAscii(pattern), foldAscii(value)) : wildcardMatch(pattern, value);
}
