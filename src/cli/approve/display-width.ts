// How many terminal columns text takes, and text cut to fit: lines of neutralised text (no
// controls) wrapped so that no line runs past the screen's edge, however long the agent made it.

/** East Asian wide and fullwidth ranges, and emoji presentation: two columns each. */
const WIDE = /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{1f300}-\u{1f64f}\u{1f900}-\u{1f9ff}\u{20000}-\u{3fffd}]/u;
const ZERO = /\p{M}/u;

/** The columns one character takes: 0 for combining marks, 2 for wide ones, else 1. */
export function charWidth(ch: string): number {
  return ZERO.test(ch) ? 0 : WIDE.test(ch) ? 2 : 1;
}

const NARROW = /^[\x20-\x7e]*$/; // printable ASCII: one column a character, the common case by far

export function displayWidth(text: string): number {
  if (NARROW.test(text)) return text.length;
  let width = 0;
  for (const ch of text) width += charWidth(ch);
  return width;
}

/** A line cut into pieces of at most `width` columns (at least one piece; a wide character is never split). */
export function wrapLine(text: string, width: number): string[] {
  const max = Math.max(2, width);
  const pieces: string[] = [];
  let piece = "";
  let used = 0;
  for (const ch of text) {
    const w = charWidth(ch);
    if (used + w > max) {
      pieces.push(piece);
      piece = "";
      used = 0;
    }
    piece += ch;
    used += w;
  }
  pieces.push(piece);
  return pieces;
}

/** A line cut to `width` columns, with … when something was left off. */
export function fitLine(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  return wrapLine(text, width - 1)[0] + "…";
}

/** A line cut into pieces of at most `width` columns at spaces where it can, inside a word only when the word alone is wider. */
export function wrapWords(text: string, width: number): string[] {
  const max = Math.max(2, width);
  if (displayWidth(text) <= max) return [text];
  const pieces: string[] = [];
  let piece = "";
  let used = 0; // the columns of piece
  for (const word of text.match(/\S*\s*/g) ?? []) {
    if (word === "") continue;
    const bare = word.trimEnd();
    const w = displayWidth(word);
    if (used + displayWidth(bare) <= max) {
      piece += word;
      used += w;
      continue;
    }
    if (piece !== "") pieces.push(piece.trimEnd());
    const cut = wrapLine(word, max);
    pieces.push(...cut.slice(0, -1));
    piece = cut.at(-1)!;
    used = displayWidth(piece);
  }
  pieces.push(used <= max ? piece : piece.trimEnd());
  return pieces;
}
