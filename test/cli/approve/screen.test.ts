import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { displayWidth } from "../../../src/cli/approve/display-width.js";
import type { Line, Style } from "../../../src/cli/approve/lines.js";
import { frame, wrapToRows, maxScroll, truncate } from "../../../src/cli/approve/screen.js";

// The sequences the screen itself writes: SGR attributes, clear to end of line / screen, home.
const OWN = /\x1b\[[0-9;]*m|\x1b\[K|\x1b\[J|\x1b\[H/g;
const ACTIVE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

/** The rows a terminal would show: our sequences removed, split at the row breaks. */
const rowsOf = (painted: string): string[] => painted.replace(OWN, "").split("\r\n");

const STYLES: (Style | undefined)[] = [undefined, "title", "heading", "agent", "dim", "warn", "ok", "mark", "selected"];

describe("the screen", () => {
  it("paints exactly the terminal's height, no row wider than the width, and no sequence but its own", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            text: fc.string({ unit: "binary", maxLength: 300 }),
            style: fc.constantFrom(...STYLES),
            gutter: fc.option(fc.constant("  │ "), { nil: undefined }),
          }),
          { maxLength: 20 },
        ),
        fc.integer({ min: 20, max: 120 }),
        fc.integer({ min: 3, max: 50 }),
        fc.boolean(),
        (raw, width, height, color) => {
          const lines: Line[] = raw.map(({ text, style, gutter }) => ({
            text,
            ...(style === undefined ? {} : { style }),
            ...(gutter === undefined ? {} : { gutter }),
          }));
          const body = wrapToRows(lines, width);
          const footer = truncate([{ text: "keys" }], width);
          const painted = frame(body, { width, height, scroll: maxScroll(body, height, footer.length), footer, color });
          const rows = rowsOf(painted);
          expect(rows).toHaveLength(height);
          for (const row of rows) {
            expect(row).not.toMatch(ACTIVE);
            expect(displayWidth(row)).toBeLessThanOrEqual(width);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it("shows an escape sequence in agent text as text, and the terminal gets none of it", () => {
    const painted = frame(
      wrapToRows([{ text: "hi \x1b]2;PWNED\x07 \x1b[2J \u202Eevil", gutter: "  │ ", style: "agent" }], 80),
      { width: 80, height: 2, scroll: 0, footer: [], color: true },
    );
    expect(painted.replace(OWN, "")).not.toContain("\x1b");
    expect(rowsOf(painted)[0]).toBe("  │ hi ␛]2;PWNED␇ ␛[2J <U+202E>evil");
  });

  it("starts every row of a wrapped line under its gutter, so agent text cannot begin a row of its own", () => {
    const text = "x ".repeat(30) + "── Verified facts" + " proven".repeat(20);
    const rows = wrapToRows([{ text, gutter: "  │ " }], 30);
    expect(rows.length).toBeGreaterThan(3);
    for (const row of rows) expect(row.text.startsWith("  │ ")).toBe(true);
    const source = wrapToRows([{ text: "y".repeat(40), gutter: "▶12 │ " }], 30);
    expect(source.map((r) => r.text.slice(0, 6))).toEqual(["▶12 │ ", "    │ "]);
  });

  it("lays out emoji and CJK two columns each, so a row of them ends at the screen's edge", () => {
    const text = (row: { text: string }): string => row.text;
    expect(wrapToRows([{ text: "🚀".repeat(7) }], 10).map(text)).toEqual(["🚀".repeat(5), "🚀".repeat(2)]);
    expect(wrapToRows([{ text: "✅ done ✅ done" }], 8).map(text)).toEqual(["✅ done", "✅ done"]);
    expect(wrapToRows([{ text: "日本語テキスト" }], 6).map(text)).toEqual(["日本語", "テキス", "ト"]);
    expect(wrapToRows([{ text: "🚀🚀🚀", gutter: "  │ " }], 8).map(text)).toEqual(["  │ 🚀🚀", "  │ 🚀"]);
  });

  it("keeps combining marks on their letter and counts them as no column", () => {
    const accented = "e\u0301"; // é as e and a combining acute accent
    expect(wrapToRows([{ text: accented.repeat(7) }], 5).map((r) => r.text)).toEqual([
      accented.repeat(5),
      accented.repeat(2),
    ]);
    expect(truncate([{ text: `caf${accented} ${"x".repeat(20)}` }], 8).map((r) => r.text)).toEqual([
      `caf${accented} xx…`,
    ]);
  });

  it("pads the cursor's row to the width in columns, not in characters", () => {
    const painted = frame([{ text: "🚀 日本", style: "selected" }], {
      width: 10,
      height: 1,
      scroll: 0,
      footer: [],
      color: false,
    });
    expect(rowsOf(painted)).toEqual([`🚀 日本${" ".repeat(3)}`]);
  });

  it("indents the continuation rows of a line like the line", () => {
    expect(wrapToRows([{ text: "    alpha beta gamma delta" }], 16).map((r) => r.text)).toEqual([
      "    alpha beta",
      "    gamma delta",
    ]);
  });

  it("without colour marks only the cursor's row (NO_COLOR)", () => {
    const body = truncate(
      [
        { text: "a", style: "warn" },
        { text: "b", style: "selected" },
      ],
      10,
    );
    const painted = frame(body, { width: 10, height: 2, scroll: 0, footer: [], color: false });
    expect(painted).not.toContain("\x1b[31m");
    expect(painted).toContain("\x1b[7mb");
  });

  it("scrolls: a later body row first, and never past the last row", () => {
    const body = wrapToRows(
      Array.from({ length: 10 }, (_, i) => ({ text: `row ${i}` })),
      20,
    );
    expect(maxScroll(body, 5, 1)).toBe(6);
    expect(
      rowsOf(frame(body, { width: 20, height: 5, scroll: 6, footer: truncate([{ text: "keys" }], 20), color: false })),
    ).toEqual(["row 6", "row 7", "row 8", "row 9", "keys"]);
  });
});
