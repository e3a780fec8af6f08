// Agent text (the rationale, the source, argument values) is hostile input on a terminal: an escape
// sequence could repaint the screen, set the window title, fake a "proven" line or move the cursor
// over a warning; bidi overrides reorder what is read. Every character a terminal would act on or
// hide is shown as visible text instead.

/**
 * Characters a terminal interprets or renders invisibly: controls, format characters (bidi, zero width), separators,
 * lone surrogates.
 */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

const TAB = "    ";

/** One character as visible text: C0 and DEL as their control pictures (␛, ␇), the rest as <U+XXXX>. */
function visible(ch: string): string {
  const cp = ch.codePointAt(0)!;
  if (cp === 0x09) return TAB;
  if (cp < 0x20) return String.fromCodePoint(0x2400 + cp);
  if (cp === 0x7f) return "\u2421";
  return `<U+${cp.toString(16).toUpperCase().padStart(4, "0")}>`;
}

/**
 * One line of text, safe to print: nothing in it is a control or invisible character any more (line breaks included).
 */
export function neutralise(text: string): string {
  return text.replace(HIDDEN, visible);
}

/** Text of several lines (LF, CRLF or CR), each neutralised: the line breaks are the only structure kept. */
export function neutraliseLines(text: string): string[] {
  return text.split(/\r\n|\n|\r/).map(neutralise);
}
