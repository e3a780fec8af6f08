// A small JSON tree over UTF-8 bytes for connector inputs, host answers and outputs. AssemblyScript
// has no JSON in its standard library, and a trap cannot be caught, so parse() reports failure as
// null.
//
// parse() checks the whole text, then keeps each value as its place in the bytes: an object or
// array is split into members when first read, a string decoded when first read. A parsed value
// written out (unopened, or a scalar) is written as the very bytes it was parsed from, so what a
// connector only passes on (a path, a file's content, a listing, a response's headers) is copied,
// never decoded and printed again.
import { ByteWriter } from "./bytes";

export const enum Kind { Null, Bool, Num, Str, Arr, Obj }

export class J {
  // A parsed value's text: src[start, end). Null for a value made by the connector.
  private src: Uint8Array | null = null;
  private start: i32 = 0;
  private end: i32 = 0;
  private decoded: string | null = null; // a string's value
  private members: J[] | null = null; // null until a parsed array or object is opened
  private names: string[] | null = null;

  constructor(readonly kind: Kind = Kind.Null, readonly b: bool = false, readonly n: f64 = 0) {}

  static str(s: string): J { const j = new J(Kind.Str); j.decoded = s; return j; }
  static num(n: f64): J { return new J(Kind.Num, false, n); }
  static bool(b: bool): J { return new J(Kind.Bool, b); }
  static arr(): J { const j = new J(Kind.Arr); j.members = []; return j; }
  static obj(): J { const j = new J(Kind.Obj); j.members = []; j.names = []; return j; }

  /** A parsed value: `src[start, end)` is one well-formed JSON value. */
  static parsed(src: Uint8Array, start: i32, end: i32): J {
    const c = byteAt(src, start);
    let j: J;
    if (c == 0x7b) j = new J(Kind.Obj);
    else if (c == 0x5b) j = new J(Kind.Arr);
    else if (c == 0x22) j = new J(Kind.Str);
    else if (c == 0x74) j = new J(Kind.Bool, true);
    else if (c == 0x66) j = new J(Kind.Bool, false);
    else if (c == 0x6e) j = new J(Kind.Null);
    else j = new J(Kind.Num, false, parseFloat(String.UTF8.decodeUnsafe(src.dataStart + start, end - start)));
    j.src = src;
    j.start = start;
    j.end = end;
    return j;
  }

  /** A string's value ("" for any other kind). */
  get s(): string {
    if (this.kind != Kind.Str) return "";
    let d = this.decoded;
    if (d == null) this.decoded = d = unquote(changetype<Uint8Array>(this.src), this.start, this.end);
    return d;
  }

  /** An array's items or an object's values, in order (empty for any other kind). */
  get items(): J[] {
    return this.open();
  }

  /** An object's keys, beside its values in `items`. */
  get keys(): string[] {
    this.open();
    return changetype<string[]>(this.names);
  }

  push(v: J): J { this.open().push(v); return this; }

  /** Set a field (objects keep keys and values side by side, in insertion order). */
  set(key: string, v: J): J {
    const items = this.open();
    const keys = changetype<string[]>(this.names);
    const i = keys.indexOf(key);
    if (i >= 0) items[i] = v;
    else { keys.push(key); items.push(v); }
    return this;
  }

  get(key: string): J | null {
    if (this.kind != Kind.Obj) return null;
    const i = this.keys.indexOf(key);
    return i < 0 ? null : this.items[i];
  }

  /** The string at `key`, or null when absent or not a string. */
  getString(key: string): string | null {
    const v = this.get(key);
    return v != null && v.kind == Kind.Str ? v.s : null;
  }

  write(out: ByteWriter): void {
    const src = this.src;
    if (src != null && this.members == null) {
      out.copy(src.dataStart + this.start, this.end - this.start);
      return;
    }
    switch (this.kind) {
      case Kind.Null: out.text("null"); break;
      case Kind.Bool: out.text(this.b ? "true" : "false"); break;
      case Kind.Num: out.text(isInteger(this.n) ? (<i64>this.n).toString() : this.n.toString()); break;
      case Kind.Str: quote(this.s, out); break;
      case Kind.Arr: {
        const items = this.items;
        out.byte(0x5b);
        for (let i = 0; i < items.length; i++) { if (i > 0) out.byte(0x2c); items[i].write(out); }
        out.byte(0x5d);
        break;
      }
      default: {
        const items = this.items;
        const keys = this.keys;
        out.byte(0x7b);
        for (let i = 0; i < keys.length; i++) {
          if (i > 0) out.byte(0x2c);
          quote(keys[i], out);
          out.byte(0x3a);
          items[i].write(out);
        }
        out.byte(0x7d);
      }
    }
  }

  /** The value as JSON text in UTF-8. */
  toBytes(): ByteWriter {
    const out = new ByteWriter();
    this.write(out);
    return out;
  }

  stringify(): string {
    const out = this.toBytes();
    return String.UTF8.decodeUnsafe(out.dataStart(), out.length);
  }

  /** The members, splitting a parsed array or object on first use (its text is known to be well-formed). */
  private open(): J[] {
    let members = this.members;
    if (members != null) return members;
    this.members = members = [];
    this.names = [];
    const src = this.src;
    if (src == null || (this.kind != Kind.Arr && this.kind != Kind.Obj)) return members;
    let p = ws(src, this.start + 1);
    if (p == this.end - 1) return members;
    while (true) {
      let key = "";
      if (this.kind == Kind.Obj) {
        const keyEnd = skipString(src, p);
        key = unquote(src, p, keyEnd);
        p = ws(src, ws(src, keyEnd) + 1); // past the colon
      }
      const end = skip(src, p, 0);
      const v = J.parsed(src, p, end);
      if (this.kind == Kind.Obj) this.set(key, v);
      else members.push(v);
      p = ws(src, end);
      if (byteAt(src, p) != 0x2c) return members;
      p = ws(src, p + 1);
    }
  }
}

function isInteger(n: f64): bool {
  return n == Math.floor(n) && Math.abs(n) < 9007199254740992.0;
}

const HEX = "0123456789abcdef";

function quote(s: string, out: ByteWriter): void {
  out.byte(0x22);
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c != 0x22 && c != 0x5c) continue;
    if (i > start) out.utf8(s, start, i - start);
    start = i + 1;
    if (c == 0x22) out.text("\\\"");
    else if (c == 0x5c) out.text("\\\\");
    else if (c == 0x0a) out.text("\\n");
    else if (c == 0x0d) out.text("\\r");
    else if (c == 0x09) out.text("\\t");
    else out.text("\\u00" + HEX.charAt(c >> 4) + HEX.charAt(c & 15));
  }
  if (start < s.length) out.utf8(s, start, s.length - start);
  out.byte(0x22);
}

/** Parse JSON text; null when it is not exactly one well-formed JSON value. */
export function parse(src: Uint8Array): J | null {
  const start = ws(src, 0);
  const end = skip(src, start, 0);
  return end < 0 || ws(src, end) != src.length ? null : J.parsed(src, start, end);
}

const MAX_DEPTH = 64;

/** The byte at `p`, or -1 past the end. */
function byteAt(src: Uint8Array, p: i32): i32 {
  return p < src.length ? <i32>unchecked(src[p]) : -1;
}

function ws(src: Uint8Array, p: i32): i32 {
  while (true) {
    const c = byteAt(src, p);
    if (c != 0x20 && c != 0x0a && c != 0x0d && c != 0x09) return p;
    p++;
  }
}

/** The end of the JSON value that starts at `p`, or -1 when there is no well-formed one. */
function skip(src: Uint8Array, p: i32, depth: i32): i32 {
  if (depth > MAX_DEPTH) return -1;
  const c = byteAt(src, p);
  if (c == 0x7b || c == 0x5b) {
    const close = c + 2; // } or ]
    p = ws(src, p + 1);
    if (byteAt(src, p) == close) return p + 1;
    while (true) {
      if (c == 0x7b) {
        if (byteAt(src, p) != 0x22) return -1;
        p = skipString(src, p);
        if (p < 0) return -1;
        p = ws(src, p);
        if (byteAt(src, p) != 0x3a) return -1;
        p = ws(src, p + 1);
      }
      p = skip(src, p, depth + 1);
      if (p < 0) return -1;
      p = ws(src, p);
      const d = byteAt(src, p);
      if (d == close) return p + 1;
      if (d != 0x2c) return -1;
      p = ws(src, p + 1);
    }
  }
  if (c == 0x22) return skipString(src, p);
  if (c == 0x74) return literal(src, p, "true");
  if (c == 0x66) return literal(src, p, "false");
  if (c == 0x6e) return literal(src, p, "null");
  return skipNumber(src, p);
}

function literal(src: Uint8Array, p: i32, word: string): i32 {
  for (let i = 0; i < word.length; i++) if (byteAt(src, p + i) != word.charCodeAt(i)) return -1;
  return p + word.length;
}

function isDigit(c: i32): bool {
  return c >= 0x30 && c <= 0x39;
}

function digits(src: Uint8Array, p: i32): i32 {
  while (isDigit(byteAt(src, p))) p++;
  return p;
}

/** -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
function skipNumber(src: Uint8Array, p: i32): i32 {
  if (byteAt(src, p) == 0x2d) p++;
  const first = byteAt(src, p);
  if (first == 0x30) p++;
  else if (isDigit(first)) p = digits(src, p);
  else return -1;
  if (byteAt(src, p) == 0x2e) {
    if (!isDigit(byteAt(src, p + 1))) return -1;
    p = digits(src, p + 1);
  }
  const e = byteAt(src, p);
  if (e == 0x65 || e == 0x45) {
    p++;
    const sign = byteAt(src, p);
    if (sign == 0x2b || sign == 0x2d) p++;
    if (!isDigit(byteAt(src, p))) return -1;
    p = digits(src, p);
  }
  return p;
}

/** The end of the string token whose opening quote is at `p`, or -1. */
function skipString(src: Uint8Array, p: i32): i32 {
  p++;
  while (true) {
    const c = byteAt(src, p);
    if (c == 0x22) return p + 1;
    if (c < 0x20) return -1; // a control character, or the end of the text
    if (c != 0x5c) { p++; continue; }
    const e = byteAt(src, p + 1);
    if (e == 0x75) {
      if (hex4(src, p + 2) < 0) return -1;
      p += 6;
    } else if (e == 0x22 || e == 0x5c || e == 0x2f || e == 0x62 || e == 0x66 || e == 0x6e || e == 0x72 || e == 0x74) p += 2;
    else return -1;
  }
}

function hex4(src: Uint8Array, p: i32): i32 {
  let v = 0;
  for (let i = 0; i < 4; i++) {
    const c = byteAt(src, p + i);
    let d = -1;
    if (c >= 0x30 && c <= 0x39) d = c - 0x30;
    else if (c >= 0x61 && c <= 0x66) d = c - 0x57;
    else if (c >= 0x41 && c <= 0x46) d = c - 0x37;
    if (d < 0) return -1;
    v = (v << 4) | d;
  }
  return v;
}

/** The value of the well-formed string token src[start, end), quotes included. */
function unquote(src: Uint8Array, start: i32, end: i32): string {
  const base = src.dataStart;
  const last = end - 1;
  let from = start + 1;
  let i = from;
  while (i < last && load<u8>(base + i) != 0x5c) i++;
  if (i == last) return String.UTF8.decodeUnsafe(base + from, last - from);
  // Unescaped into UTF-8: a \u escape as its code unit's own sequence (a surrogate as WTF-8),
  // which decoding turns back into that code unit, so escaped pairs and lone surrogates survive.
  const out = new ByteWriter();
  while (i < last) {
    if (load<u8>(base + i) != 0x5c) { i++; continue; }
    out.copy(base + from, i - from);
    const e = load<u8>(base + i + 1);
    if (e == 0x75) {
      out.codeUnit(hex4(src, i + 2));
      i += 6;
    } else {
      out.byte(e == 0x6e ? 0x0a : e == 0x72 ? 0x0d : e == 0x74 ? 0x09 : e == 0x62 ? 0x08 : e == 0x66 ? 0x0c : e);
      i += 2;
    }
    from = i;
  }
  out.copy(base + from, last - from);
  return String.UTF8.decodeUnsafe(out.dataStart(), out.length);
}
