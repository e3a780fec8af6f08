/**
 * The texts a program's source spells in its literals, for finding a value an agent pasted in
 * pieces or in disguise: every string and template piece in source order, escapes decoded
 * (`"DE89"` … `"3704"` far apart, `"\x44E89"`), and the characters its integer literals spell
 * (`String.fromCharCode(97, 116, …)`). Comments are skipped, so a quote in one does not derail
 * the scan. A lexer of JavaScript's literal syntax only: a regular expression literal holding a
 * quote would derail it, and the analysis refuses those programs' other hiding places anyway; what
 * it misses, the literals the analysis folds into calls still carry (markPasted).
 */
export function programLiterals(source: string): { strings: string; codes: string } {
  const strings: string[] = [];
  const codes: number[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    const next = source[i + 1];
    if (c === "/" && next === "/") i = lineEnd(source, i);
    else if (c === "/" && next === "*") i = blockEnd(source, i);
    else if (c === '"' || c === "'" || c === "`") {
      const read = readString(source, i + 1, c);
      strings.push(read.text);
      i = read.end;
    } else if (/[0-9]/.test(c) && (i === 0 || !/[\p{L}\p{N}_$.]/u.test(source[i - 1]!))) {
      const m = /^(?:0[xX][0-9a-fA-F_]+|[0-9][0-9_]*)/.exec(source.slice(i, i + 24))!;
      const n = Number(m[0].replaceAll("_", ""));
      if (n >= 32 && n <= 0x10ffff) codes.push(n);
      i += m[0].length;
    } else i += 1;
  }
  return { strings: strings.join(""), codes: String.fromCodePoint(...codes.slice(0, MAX_CODES)) };
}

/** More integer literals than this are not spelled out (String.fromCodePoint's arguments). */
const MAX_CODES = 65_536;

function lineEnd(source: string, i: number): number {
  const end = source.indexOf("\n", i);
  return end < 0 ? source.length : end;
}

function blockEnd(source: string, i: number): number {
  const end = source.indexOf("*/", i + 2);
  return end < 0 ? source.length : end + 2;
}

const SIMPLE: Readonly<Record<string, string>> = { n: "\n", t: "\t", r: "\r", b: "\b", f: "\f", v: "\v", 0: "\0" };

/**
 * A string (or a template's text, `${` … `}` skipped as code) from after its opening quote: its value and where it
 * ends.
 */
function readString(source: string, start: number, quote: string): { text: string; end: number } {
  let text = "";
  let i = start;
  while (i < source.length) {
    const c = source[i]!;
    if (c === quote) return { text, end: i + 1 };
    if (quote === "`" && c === "$" && source[i + 1] === "{") {
      text += " "; // an interpolation separates the pieces around it
      i = interpolationEnd(source, i + 2);
      continue;
    }
    if (c !== "\\") {
      text += c;
      i += 1;
      continue;
    }
    const e = source[i + 1] ?? "";
    const hex =
      e === "x"
        ? /^[0-9a-fA-F]{2}/.exec(source.slice(i + 2, i + 4))
        : e === "u"
          ? /^(?:[0-9a-fA-F]{4}|\{[0-9a-fA-F]{1,6}\})/.exec(source.slice(i + 2, i + 10))
          : null;
    if (hex !== null) {
      const code = Number.parseInt(hex[0].replace(/[{}]/g, ""), 16);
      text += code <= 0x10ffff ? String.fromCodePoint(code) : "";
      i += 2 + hex[0].length;
    } else {
      text += SIMPLE[e] ?? (e === "\n" || e === "\r" ? "" : e);
      i += 2;
    }
  }
  return { text, end: i };
}

/** Where a template's `${ … }` ends: braces counted, strings inside it read through. */
function interpolationEnd(source: string, start: number): number {
  let depth = 1;
  let i = start;
  while (i < source.length && depth > 0) {
    const c = source[i]!;
    if (c === '"' || c === "'" || c === "`") i = readString(source, i + 1, c).end;
    else {
      if (c === "{") depth += 1;
      else if (c === "}") depth -= 1;
      i += 1;
    }
  }
  return i;
}
