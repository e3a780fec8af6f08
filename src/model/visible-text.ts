/**
 * Characters that change how text around them is shown rather than showing themselves: C0 and
 * C1 controls (terminal escape sequences start with ESC or CSI), DEL, bidi embeddings, overrides
 * and isolates (they reorder what a reader sees against what runs), zero-width characters and
 * the BOM. Line feeds and tabs stay: they are how programs and messages are laid out.
 */
const INVISIBLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

/**
 * Agent-supplied text made safe to show as it is: every character above is replaced by a visible
 * `⟨U+XXXX⟩` marker, so that neither a browser nor a terminal acts on it and the reader sees it
 * is there. HTML escaping is the browser's own step on top of this.
 */
export function visibleText(text: string): string {
  return text.replace(INVISIBLE, (ch) => `⟨U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}⟩`);
}
