/** How a line is drawn; the screen maps these to plain ANSI attributes (or none). */
export type Style = "title" | "heading" | "agent" | "dim" | "warn" | "ok" | "mark" | "selected";

/**
 * One logical line of a screen: text that may come from the agent (the screen neutralises it) and
 * how to draw it. A `gutter` (our own text, e.g. "  │ ") starts every row the line wraps into, its
 * rule "│" kept and the rest blanked after the first row: wrapped agent text can never start a row
 * that looks like one of ours.
 */
export interface Line {
  text: string;
  style?: Style;
  gutter?: string;
}

export const line = (text: string, style?: Style): Line => (style === undefined ? { text } : { text, style });

/** A duration in words, to the unit that matters: "40 s", "13 min", "2 h", "3 d". */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h`;
  return `${Math.floor(s / 86_400)} d`;
}

/** A decision's kind in words, on the list and on a request. */
export const DECISION_WORDS: Readonly<Record<string, string>> = {
  approved_once: "approved once",
  approved_remember: "approved and remembered",
  rejected: "rejected",
  request_more: "sent back for changes",
  auto_approved: "approved",
  auto_rejected: "rejected",
};
