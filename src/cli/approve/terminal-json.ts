// JSON.stringify escapes C0 controls but leaves DEL, C1 controls (0x9b is a CSI to some
// terminals), bidi overrides and other invisible characters raw. Outside JSON's own syntax
// (ASCII) such characters occur only inside strings, where \uXXXX means the same text.
const RAW = /[\u007f-\u009f\p{Cf}\p{Zl}\p{Zp}]/gu;

const unicodeEscape = (ch: string): string =>
  Array.from({ length: ch.length }, (_, i) => `\\u${ch.charCodeAt(i).toString(16).padStart(4, "0")}`).join("");

/** JSON (indented) that says the same as JSON.stringify and is safe to print on a terminal. */
export function terminalJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(RAW, unicodeEscape);
}
