// Agent text reaches the terminal only through neutralise: whatever it holds, nothing in the
// result is a control, format or separator character a terminal would act on or hide.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { displayWidth, fitLine, wrapLine, wrapWords } from "../../../src/cli/approve/display-width.js";
import { neutralise, neutraliseLines } from "../../../src/cli/approve/neutralise.js";
import { terminalJson } from "../../../src/cli/approve/terminal-json.js";

const ACTIVE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;

describe("neutralise", () => {
  it("shows C0 controls and DEL as their control pictures", () => {
    expect(neutralise("a\u0000b\u0007c\u0008d\re\u001bf\u007f")).toBe("a␀b␇c␈d␍e␛f␡");
  });

  it("shows C1 controls as code points (0x9b is a CSI to 8-bit terminals, 0x85 a line break)", () => {
    expect(neutralise("x\u009b31my\u0085z\u0090")).toBe("x<U+009B>31my<U+0085>z<U+0090>");
  });

  it("turns escape sequences into inert text: colours, cursor moves, clears, window titles, hyperlinks, device queries", () => {
    const hostile =
      "\u001b[31mred\u001b[0m\u001b[2J\u001b[H\u001b]2;PWNED\u0007\u001b]8;;https://evil.example\u001b\\link\u001b]8;;\u001b\\\u001bP+q\u001b\\\u001b[6n";
    const shown = neutralise(hostile);
    expect(shown).not.toMatch(ACTIVE);
    expect(shown).toBe("␛[31mred␛[0m␛[2J␛[H␛]2;PWNED␇␛]8;;https://evil.example␛\\link␛]8;;␛\\␛P+q␛\\␛[6n");
  });

  it("shows bidi overrides, isolates and marks, and zero-width characters, so text reads in the order it is stored", () => {
    for (const cp of [
      0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c, 0x200b, 0x200d,
      0xfeff, 0x2028, 0x2029,
    ]) {
      const ch = String.fromCodePoint(cp);
      expect(neutralise(`a${ch}b`)).toBe(`a<U+${cp.toString(16).toUpperCase().padStart(4, "0")}>b`);
    }
    expect(neutralise("admin\u202Egpj.exe")).toBe("admin<U+202E>gpj.exe");
  });

  it("shows a lone surrogate and tag characters instead of passing them on", () => {
    expect(neutralise("a\ud800b")).toBe("a<U+D800>b");
    expect(neutralise("a\u{E0041}b")).toBe("a<U+E0041>b");
  });

  it("keeps ordinary text of any script as it is, and a tab as spaces", () => {
    for (const text of [
      "Tell Bob the report is ready.",
      "Grüße, Ωμέγα, 日本語, עברית, العربية, 😀",
      "é (e + combining acute)",
    ])
      expect(neutralise(text)).toBe(text);
    expect(neutralise("a\tb")).toBe("a    b");
  });

  it("neutraliseLines splits on LF, CRLF and CR alone, and no line keeps a break", () => {
    expect(neutraliseLines("one\ntwo\r\nthree\rfour\u2028five")).toEqual(["one", "two", "three", "four<U+2028>five"]);
  });

  it("leaves nothing active in any string (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 200 }), (text) => {
        expect(neutralise(text)).not.toMatch(ACTIVE);
        for (const l of neutraliseLines(text)) expect(l).not.toMatch(ACTIVE);
      }),
      { numRuns: 200 },
    );
  });

  it("changes nothing in text that has nothing to hide (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 100 }), (text) => {
        fc.pre(!ACTIVE.test(text) && !text.includes("\t"));
        expect(neutralise(text)).toBe(text);
      }),
      { numRuns: 300 },
    );
  });
});

describe("display width and wrapping", () => {
  it("counts wide characters and emoji as two columns and combining marks as none", () => {
    expect(displayWidth("abc")).toBe(3);
    expect(displayWidth("日本")).toBe(4);
    expect(displayWidth("😀")).toBe(2);
    expect(displayWidth("🚀")).toBe(2);
    expect(displayWidth("✅")).toBe(2);
    expect(displayWidth("e\u0301")).toBe(1);
    expect(displayWidth("👨\u200d👩\u200d👧")).toBe(2); // one emoji, joined
  });

  it("cuts a very long line into rows no wider than the screen, losing nothing", () => {
    const long = "x".repeat(100_000);
    const rows = wrapLine(long, 79);
    expect(rows).toHaveLength(Math.ceil(100_000 / 79));
    expect(rows.every((r) => displayWidth(r) <= 79)).toBe(true);
    expect(rows.join("")).toBe(long);
  });

  it("never splits a wide character across rows", () => {
    expect(wrapLine("日本語", 5)).toEqual(["日本", "語"]);
  });

  it("measures and cuts a long line of wide characters and emoji, losing nothing", () => {
    const family = "👨\u200d👩\u200d👧";
    const text = "日" + "a".repeat(1020) + family.repeat(3) + "🚀✅".repeat(20_000); // a family across the segmenter's slices
    expect(displayWidth(text)).toBe(2 + 1020 + 6 + 80_000);
    const rows = wrapLine(text, 79);
    expect(rows.join("")).toBe(text);
    expect(rows.every((r) => displayWidth(r) <= 79)).toBe(true);
    expect(
      rows
        .filter((r) => r.includes("\u200d"))
        .join("")
        .split(family)
        .join(""),
    ).not.toMatch(/[\u200d👨👩👧]/u);
  });

  it("cuts a letter under thousands of combining marks, keeping every mark", () => {
    const text = "a" + "\u0301".repeat(5000) + "b";
    expect(displayWidth(text)).toBe(2);
    expect(wrapLine(text, 10).join("")).toBe(text);
  });

  it("never splits a character from its combining marks, nor a joined emoji", () => {
    expect(wrapLine("e\u0301".repeat(5), 3)).toEqual(["e\u0301".repeat(3), "e\u0301".repeat(2)]);
    const family = "👨\u200d👩\u200d👧";
    expect(wrapLine(family.repeat(3), 5)).toEqual([family.repeat(2), family]);
  });

  it("wraps at spaces where it can, inside a word only when the word alone is wider", () => {
    expect(wrapWords("the quick brown fox", 10)).toEqual(["the quick", "brown fox"]);
    expect(wrapWords("abcdefghijklmnop xy", 6)).toEqual(["abcdef", "ghijkl", "mnop", "xy"]);
  });

  it("fitLine cuts with an ellipsis and keeps what fits", () => {
    expect(fitLine("short", 10)).toBe("short");
    expect(fitLine("a longer line", 8)).toBe("a longe…");
    expect(displayWidth(fitLine("日本語日本語", 5))).toBeLessThanOrEqual(5);
  });

  it("every row fits and the words come back in order (property)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 300 }), fc.integer({ min: 2, max: 120 }), (raw, width) => {
        const text = neutralise(raw);
        for (const rows of [wrapLine(text, width), wrapWords(text, width)]) {
          for (const r of rows) expect(displayWidth(r)).toBeLessThanOrEqual(width);
        }
        expect(wrapLine(text, width).join("")).toBe(text);
        expect(wrapWords(text, width).join("").replace(/\s/g, "")).toBe(text.replace(/\s/g, ""));
      }),
      { numRuns: 300 },
    );
  });
});

describe("terminalJson", () => {
  it("escapes what JSON.stringify leaves raw (DEL, C1, bidi, separators) and parses back to the same value", () => {
    const value = { rationale: "a\u009b31m\u202Eb\u2028c\u007f\u001b[0m\u{E0041}" };
    const text = terminalJson(value);
    expect(text.replace(/\n/g, "")).not.toMatch(ACTIVE);
    expect(text).toContain("\\u009b");
    expect(text).toContain("\\u202e");
    expect(JSON.parse(text)).toEqual(value);
  });

  it("is JSON that means the same as its input, with nothing active outside line breaks (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: "binary", maxLength: 50 }), (value, text) => {
        const out = terminalJson({ value, text });
        expect(JSON.parse(out)).toEqual(JSON.parse(JSON.stringify({ value, text })));
        expect(out.replace(/\n/g, "")).not.toMatch(ACTIVE);
      }),
      { numRuns: 300 },
    );
  });
});
