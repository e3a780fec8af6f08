import { MAX_RECEIPT_BYTES, RECEIPT_TYP } from "../model/index.js";
import { invalid } from "./refuse.js";

/** The only header parameters a receipt has. Anything else (jwk, jku, x5u, x5c, crit, b64, ...) is refused. */
const HEADER_PARAMS = new Set(["alg", "typ", "kid"]);

export interface CompactParts {
  kid: string;
  signingInput: Buffer;
  payload: Buffer;
  signature: Buffer;
}

/**
 * The checks made before any key is touched, in order: size, compact form, `alg`, the header's
 * other parameters, `typ`, and that a kid is named. The header is read here, by us: jose never
 * gets to choose a key or an algorithm from it.
 */
export function parseCompact(token: unknown): CompactParts {
  if (typeof token !== "string") throw invalid("malformed", "not a string");
  if (token.length > MAX_RECEIPT_BYTES)
    throw invalid("too_large", `${token.length} bytes, more than ${MAX_RECEIPT_BYTES}`);
  const parts = token.split(".");
  if (parts.length !== 3) throw invalid("malformed", `a compact JWS has 3 parts, this has ${parts.length}`);
  const [h, p, s] = parts as [string, string, string];
  const headerBytes = decodePart(h, "header");
  const payload = decodePart(p, "payload");
  const signature = s === "" ? Buffer.alloc(0) : decodePart(s, "signature"); // empty: refused by alg or signature check

  const header = parseJsonObject(headerBytes);
  if (header === undefined) throw invalid("malformed", "the header is not a JSON object");
  if (header.alg !== "EdDSA") throw invalid("bad_alg", `alg ${JSON.stringify(header.alg)} is not EdDSA`);
  const extra = Object.keys(header).filter((name) => !HEADER_PARAMS.has(name));
  if (extra.length > 0)
    throw invalid("bad_header", `header parameter ${extra.map((n) => JSON.stringify(n)).join(", ")} is not allowed`);
  if (header.typ !== RECEIPT_TYP) throw invalid("bad_typ", `typ ${JSON.stringify(header.typ)} is not ${RECEIPT_TYP}`);
  if (typeof header.kid !== "string") throw invalid("unknown_kid", "the header names no kid");
  return { kid: header.kid, signingInput: Buffer.from(`${h}.${p}`, "ascii"), payload, signature };
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/**
 * Strict base64url: no padding, no stray characters, and the canonical encoding of its bytes —
 * checked on the text, without encoding the bytes again: a length of 1 mod 4 encodes no whole
 * byte, and the bits of the last character past the last byte must be zero.
 */
function decodePart(part: string, name: string): Buffer {
  if (part.length === 0 || !BASE64URL.test(part)) throw invalid("malformed", `the ${name} is not base64url`);
  const rest = part.length % 4;
  const spare = rest === 2 ? 0b1111 : rest === 3 ? 0b11 : 0;
  if (rest === 1 || (ALPHABET.indexOf(part[part.length - 1]!) & spare) !== 0)
    throw invalid("malformed", `the ${name} is not canonical base64url`);
  return Buffer.from(part, "base64url");
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

// JSON.parse makes `__proto__` an own key, which schema code that looks keys up in plain objects
// can mistake for the prototype: no receipt needs the name, so a part holding it is malformed.
const noProtoKey = (key: string, value: unknown): unknown => {
  if (key === "__proto__") throw new SyntaxError("a __proto__ key");
  return value;
};

/**
 * A JSON object from UTF-8 bytes, or undefined for anything else (bad UTF-8, bad JSON, a `__proto__` key, not an
 * object).
 */
export function parseJsonObject(bytes: Uint8Array): Record<string, unknown> | undefined {
  try {
    const text = utf8.decode(bytes);
    // The reviver costs a call per member: only text that can spell the key (literally, or with a
    // \u escape, the one way JSON can write a letter otherwise) needs it.
    const value: unknown =
      text.includes("__proto__") || text.includes("\\u") ? JSON.parse(text, noProtoKey) : JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
