import { displayWidth, fitLine, wrapWords } from "./display-width.js";
import type { Line, Style } from "./lines.js";
import { neutralise } from "./neutralise.js";

// Drawing on a plain ANSI terminal (works over SSH; no mouse, no terminfo): every line is
// neutralised here, at the one place text reaches the terminal, so no caller can forget it;
// the only escape sequences written are this file's own.

const SGR: Record<Style, string> = {
  title: "\x1b[1m",
  heading: "\x1b[1;4m",
  agent: "\x1b[33m",
  dim: "\x1b[2m",
  warn: "\x1b[31m",
  ok: "\x1b[32m",
  mark: "\x1b[1m",
  selected: "\x1b[7m",
};
const PLAIN: Partial<Record<Style, string>> = { selected: "\x1b[7m" }; // NO_COLOR: only the cursor row stands out
const RESET = "\x1b[0m";

export const ENTER_SCREEN = "\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J"; // the alternate screen, cursor hidden
export const LEAVE_SCREEN = "\x1b[0m\x1b[?25h\x1b[?1049l";

/** One screen row: neutralised text that fits the width. */
export interface ScreenRow {
  text: string;
  style?: Style;
}

/**
 * Logical lines as screen rows: neutralised, and wrapped to the width with continuation rows indented like their line
 * (or under its gutter).
 */
export function wrapToRows(lines: readonly Line[], width: number): ScreenRow[] {
  const rows: ScreenRow[] = [];
  for (const l of lines) {
    const text = neutralise(l.text);
    const gutter = l.gutter ?? "";
    const room = Math.max(2, width - displayWidth(gutter));
    const indent = l.gutter === undefined ? Math.min(/^ */.exec(text)![0].length, Math.floor(width / 2)) : 0;
    const first = wrapWords(text, room)[0]!;
    const remaining = text.slice(first.length).trimStart();
    const rest = remaining === "" ? [] : wrapWords(remaining, room - indent);
    const next = gutter.replace(/[^│]/g, " ") + " ".repeat(indent);
    for (const [i, piece] of [first, ...rest].entries())
      rows.push({ text: (i === 0 ? gutter : next) + piece, ...(l.style === undefined ? {} : { style: l.style }) });
  }
  return rows;
}

/** Logical lines as one row each, cut at the width with … (a list: one row per item). */
export function truncate(lines: readonly Line[], width: number): ScreenRow[] {
  return lines.map((l) => ({ ...l, text: fitLine(neutralise(l.text), width) }));
}

export interface FrameOptions {
  width: number;
  height: number;
  scroll: number; // the first body row shown
  footer: readonly ScreenRow[]; // kept at the bottom
  color: boolean;
}

/** The body rows from `scroll` that fit above the footer, and the footer: one whole repaint, no clearing flash. */
export function frame(body: readonly ScreenRow[], options: FrameOptions): string {
  const footer = options.footer;
  const room = Math.max(0, options.height - footer.length);
  const shown = body.slice(options.scroll, options.scroll + room);
  const rows: ScreenRow[] = [...shown, ...Array.from({ length: room - shown.length }, () => ({ text: "" })), ...footer];
  const styles = options.color ? SGR : PLAIN;
  const painted = rows.map((r) => {
    const sgr = r.style === undefined ? undefined : styles[r.style];
    const pad = r.style === "selected" ? " ".repeat(Math.max(0, options.width - displayWidth(r.text))) : "";
    return sgr === undefined ? `${r.text}\x1b[K` : `${sgr}${r.text}${pad}${RESET}\x1b[K`;
  });
  return `\x1b[H${painted.join("\r\n")}\x1b[J`;
}

/** The furthest a body can scroll: its last row at the bottom of the room left above the footer. */
export function maxScroll(body: readonly ScreenRow[], height: number, footerRows: number): number {
  return Math.max(0, body.length - Math.max(1, height - footerRows));
}
