// Base64 (RFC 4648): the standard alphabet for MIME encoded words, the URL-safe one for Gmail's
// `raw` and `body.data` fields.

const STD = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/**
 * Encode UTF-8 text; `url` picks the URL-safe alphabet without padding. Written into one buffer:
 * a connector's heap is only reset between calls, so a string per group would take tens of
 * times the text's size.
 */
export function encodeText(text: string, url: bool): string {
  const bytes = Uint8Array.wrap(String.UTF8.encode(text));
  const abc = url ? URL : STD;
  const n = bytes.length;
  const rest = n % 3;
  const out = new Uint8Array((n - rest) / 3 * 4 + (rest == 0 ? 0 : url ? rest + 1 : 4));
  let o = 0;
  let i = 0;
  for (; i + 3 <= n; i += 3) {
    const v = (<u32>bytes[i] << 16) | (<u32>bytes[i + 1] << 8) | <u32>bytes[i + 2];
    out[o++] = <u8>abc.charCodeAt(v >> 18);
    out[o++] = <u8>abc.charCodeAt((v >> 12) & 63);
    out[o++] = <u8>abc.charCodeAt((v >> 6) & 63);
    out[o++] = <u8>abc.charCodeAt(v & 63);
  }
  if (rest > 0) {
    const v = (<u32>bytes[i] << 16) | (rest == 2 ? <u32>bytes[i + 1] << 8 : 0);
    out[o++] = <u8>abc.charCodeAt(v >> 18);
    out[o++] = <u8>abc.charCodeAt((v >> 12) & 63);
    if (rest == 2) out[o++] = <u8>abc.charCodeAt((v >> 6) & 63);
    while (o < out.length) out[o++] = 0x3d; // "=" padding (the URL-safe form has none)
  }
  return String.UTF8.decodeUnsafe(out.dataStart, out.length);
}

function digit(c: i32): i32 {
  if (c >= 0x41 && c <= 0x5a) return c - 0x41;
  if (c >= 0x61 && c <= 0x7a) return c - 0x61 + 26;
  if (c >= 0x30 && c <= 0x39) return c - 0x30 + 52;
  if (c == 0x2b || c == 0x2d) return 62;
  if (c == 0x2f || c == 0x5f) return 63;
  return -1;
}

/** Decode either alphabet (padding optional) to UTF-8 text; null on a character outside both. */
export function decodeText(s: string): string | null {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) == 0x3d) end--;
  if (end % 4 == 1) return null;
  const bytes = new Uint8Array((end * 3) >> 2);
  let acc: u32 = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < end; i++) {
    const d = digit(s.charCodeAt(i));
    if (d < 0) return null;
    acc = (acc << 6) | <u32>d;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[o++] = <u8>((acc >> bits) & 0xff);
    }
  }
  return String.UTF8.decode(bytes.buffer);
}
