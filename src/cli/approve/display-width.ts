// How many terminal columns text takes, and text cut to fit: lines of neutralised text (no
// controls) wrapped so that no line runs past the screen's edge, however long the agent made it.
// Widths come from string-width (East Asian width, emoji presentation, combining marks), and a
// line is cut between grapheme clusters, so a base character keeps its marks and an emoji
// sequence stays whole.
import stringWidth from "string-width";

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });
const NARROW = /^[\x20-\x7e]*$/; // printable ASCII: one column a character, the common case by far
const SLICE = 1024;

/**
 * The grapheme clusters of text, segmented a slice at a time: Node's segmenter takes time growing
 * with the square of what it segments, and an agent's line may be as long as it likes. The last
 * cluster of a slice may go on in the next, so it is segmented again with it; one longer than a
 * slice (a letter under thousands of marks) is cut there.
 */
function* clustersOf(text: string): Generator<string> {
  let carry = "";
  for (let start = 0; start < text.length; start += SLICE) {
    let last = "";
    for (const { segment } of graphemes.segment(carry + text.slice(start, start + SLICE))) {
      if (last !== "") yield last;
      last = segment;
    }
    if (last.length <= SLICE) {
      carry = last;
    } else {
      yield last;
      carry = "";
    }
  }
  if (carry !== "") yield carry;
}

// Widths of short clusters seen, kept up to a bound: string-width costs microseconds a call, and a
// long line an agent wrote repeats a few clusters many times.
const widths = new Map<string, number>();
const MAX_KEPT_WIDTHS = 4096;
const MAX_KEPT_CLUSTER = 64;

function clusterWidth(cluster: string): number {
  let width = widths.get(cluster);
  if (width === undefined) {
    width = stringWidth(cluster);
    if (widths.size < MAX_KEPT_WIDTHS && cluster.length <= MAX_KEPT_CLUSTER) widths.set(cluster, width);
  }
  return width;
}

export function displayWidth(text: string): number {
  if (NARROW.test(text)) return text.length;
  let width = 0;
  for (const cluster of clustersOf(text)) width += clusterWidth(cluster);
  return width;
}

/**
 * The pieces a line may be cut between, each with its columns: its clusters, or the code points of one wider than a
 * row.
 */
function* pieces(text: string, max: number): Generator<{ text: string; width: number }> {
  for (const cluster of clustersOf(text)) {
    const width = clusterWidth(cluster);
    if (width <= max) yield { text: cluster, width };
    else for (const ch of cluster) yield { text: ch, width: clusterWidth(ch) };
  }
}

/** A line cut into pieces of at most `width` columns (at least one piece; a wide character is never split). */
export function wrapLine(text: string, width: number): string[] {
  const max = Math.max(2, width);
  if (NARROW.test(text))
    return text === ""
      ? [""]
      : Array.from({ length: Math.ceil(text.length / max) }, (_, i) => text.slice(i * max, (i + 1) * max));
  const rows: string[] = [];
  let row = "";
  let used = 0;
  for (const piece of pieces(text, max)) {
    if (used + piece.width > max) {
      rows.push(row);
      row = "";
      used = 0;
    }
    row += piece.text;
    used += piece.width;
  }
  rows.push(row);
  return rows;
}

/** A line cut to `width` columns, with … when something was left off. */
export function fitLine(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  return wrapLine(text, width - 1)[0] + "…";
}

/**
 * A line cut into pieces of at most `width` columns at spaces where it can, inside a word only when the word alone is
 * wider.
 */
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
