// A small JSON tree for connector inputs, host answers and outputs. AssemblyScript has no JSON in
// its standard library, and a trap cannot be caught, so parse() reports failure as null.

export const enum Kind { Null, Bool, Num, Str, Arr, Obj }

export class J {
  kind: Kind = Kind.Null;
  b: bool = false;
  n: f64 = 0;
  s: string = "";
  items: J[] = [];
  keys: string[] = [];

  static str(s: string): J { const j = new J(); j.kind = Kind.Str; j.s = s; return j; }
  static num(n: f64): J { const j = new J(); j.kind = Kind.Num; j.n = n; return j; }
  static bool(b: bool): J { const j = new J(); j.kind = Kind.Bool; j.b = b; return j; }
  static arr(): J { const j = new J(); j.kind = Kind.Arr; return j; }
  static obj(): J { const j = new J(); j.kind = Kind.Obj; return j; }

  push(v: J): J { this.items.push(v); return this; }

  /** Set a field (objects keep keys and values side by side, in insertion order). */
  set(key: string, v: J): J {
    const i = this.keys.indexOf(key);
    if (i >= 0) this.items[i] = v;
    else { this.keys.push(key); this.items.push(v); }
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

  stringify(): string {
    const out: string[] = [];
    write(this, out);
    return out.join("");
  }
}

function write(j: J, out: string[]): void {
  switch (j.kind) {
    case Kind.Null: out.push("null"); break;
    case Kind.Bool: out.push(j.b ? "true" : "false"); break;
    case Kind.Num: out.push(isInteger(j.n) ? (<i64>j.n).toString() : j.n.toString()); break;
    case Kind.Str: quote(j.s, out); break;
    case Kind.Arr: {
      out.push("[");
      for (let i = 0; i < j.items.length; i++) { if (i > 0) out.push(","); write(j.items[i], out); }
      out.push("]");
      break;
    }
    default: {
      out.push("{");
      for (let i = 0; i < j.keys.length; i++) {
        if (i > 0) out.push(",");
        quote(j.keys[i], out);
        out.push(":");
        write(j.items[i], out);
      }
      out.push("}");
    }
  }
}

function isInteger(n: f64): bool {
  return n == Math.floor(n) && Math.abs(n) < 9007199254740992.0;
}

const HEX = "0123456789abcdef";

function quote(s: string, out: string[]): void {
  out.push("\"");
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c != 0x22 && c != 0x5c) continue;
    if (i > start) out.push(s.substring(start, i));
    start = i + 1;
    if (c == 0x22) out.push("\\\"");
    else if (c == 0x5c) out.push("\\\\");
    else if (c == 0x0a) out.push("\\n");
    else if (c == 0x0d) out.push("\\r");
    else if (c == 0x09) out.push("\\t");
    else out.push("\\u00" + HEX.charAt(c >> 4) + HEX.charAt(c & 15));
  }
  if (start < s.length) out.push(s.substring(start));
  out.push("\"");
}

/** Parse JSON text; null when it is not exactly one well-formed JSON value. */
export function parse(text: string): J | null {
  const p = new Parser(text);
  const v = p.value(0);
  p.ws();
  return p.failed || p.pos != text.length ? null : v;
}

const MAX_DEPTH = 64;

class Parser {
  pos: i32 = 0;
  failed: bool = false;
  constructor(public text: string) {}

  fail(): J { this.failed = true; return new J(); }

  ws(): void {
    while (this.pos < this.text.length) {
      const c = this.text.charCodeAt(this.pos);
      if (c != 0x20 && c != 0x0a && c != 0x0d && c != 0x09) break;
      this.pos++;
    }
  }

  literal(word: string): bool {
    if (this.text.substr(this.pos, word.length) != word) return false;
    this.pos += word.length;
    return true;
  }

  value(depth: i32): J {
    if (depth > MAX_DEPTH) return this.fail();
    this.ws();
    if (this.pos >= this.text.length) return this.fail();
    const c = this.text.charCodeAt(this.pos);
    if (c == 0x7b) return this.object(depth);
    if (c == 0x5b) return this.array(depth);
    if (c == 0x22) { const s = this.string(); return this.failed ? new J() : J.str(s); }
    if (this.literal("true")) return J.bool(true);
    if (this.literal("false")) return J.bool(false);
    if (this.literal("null")) return new J();
    return this.number();
  }

  object(depth: i32): J {
    const o = J.obj();
    this.pos++;
    this.ws();
    if (this.pos < this.text.length && this.text.charCodeAt(this.pos) == 0x7d) { this.pos++; return o; }
    while (!this.failed) {
      this.ws();
      if (this.pos >= this.text.length || this.text.charCodeAt(this.pos) != 0x22) return this.fail();
      const key = this.string();
      this.ws();
      if (this.pos >= this.text.length || this.text.charCodeAt(this.pos) != 0x3a) return this.fail();
      this.pos++;
      o.set(key, this.value(depth + 1));
      this.ws();
      if (this.pos >= this.text.length) return this.fail();
      const c = this.text.charCodeAt(this.pos++);
      if (c == 0x7d) return o;
      if (c != 0x2c) return this.fail();
    }
    return o;
  }

  array(depth: i32): J {
    const a = J.arr();
    this.pos++;
    this.ws();
    if (this.pos < this.text.length && this.text.charCodeAt(this.pos) == 0x5d) { this.pos++; return a; }
    while (!this.failed) {
      a.push(this.value(depth + 1));
      this.ws();
      if (this.pos >= this.text.length) return this.fail();
      const c = this.text.charCodeAt(this.pos++);
      if (c == 0x5d) return a;
      if (c != 0x2c) return this.fail();
    }
    return a;
  }

  string(): string {
    const parts: string[] = [];
    let start = ++this.pos;
    while (this.pos < this.text.length) {
      const c = this.text.charCodeAt(this.pos);
      if (c == 0x22) {
        parts.push(this.text.substring(start, this.pos));
        this.pos++;
        return parts.join("");
      }
      if (c < 0x20) break;
      if (c == 0x5c) {
        parts.push(this.text.substring(start, this.pos));
        const e = this.text.charCodeAt(this.pos + 1);
        this.pos += 2;
        if (e == 0x6e) parts.push("\n");
        else if (e == 0x72) parts.push("\r");
        else if (e == 0x74) parts.push("\t");
        else if (e == 0x62) parts.push("\b");
        else if (e == 0x66) parts.push("\f");
        else if (e == 0x22 || e == 0x5c || e == 0x2f) parts.push(String.fromCharCode(e));
        else if (e == 0x75) {
          const code = this.hex4();
          if (code < 0) break;
          parts.push(String.fromCharCode(code));
        } else break;
        start = this.pos;
        continue;
      }
      this.pos++;
    }
    this.failed = true;
    return "";
  }

  hex4(): i32 {
    if (this.pos + 4 > this.text.length) return -1;
    let v = 0;
    for (let i = 0; i < 4; i++) {
      const c = this.text.charCodeAt(this.pos + i);
      let d = -1;
      if (c >= 0x30 && c <= 0x39) d = c - 0x30;
      else if (c >= 0x61 && c <= 0x66) d = c - 0x57;
      else if (c >= 0x41 && c <= 0x46) d = c - 0x37;
      if (d < 0) return -1;
      v = (v << 4) | d;
    }
    this.pos += 4;
    return v;
  }

  number(): J {
    const start = this.pos;
    while (this.pos < this.text.length) {
      const c = this.text.charCodeAt(this.pos);
      if ((c >= 0x30 && c <= 0x39) || c == 0x2d || c == 0x2b || c == 0x2e || c == 0x65 || c == 0x45) this.pos++;
      else break;
    }
    if (this.pos == start) return this.fail();
    const n = parseFloat(this.text.substring(start, this.pos));
    return isNaN(n) ? this.fail() : J.num(n);
  }
}
