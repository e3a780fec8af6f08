import { createHash } from "node:crypto";

/**
 * The one rule for a program's bytes, for every stage that reads them (check, the authority, the
 * runner): a program is UTF-8, strictly. The bytes are what is hashed, bound by a receipt and run,
 * so they are never repaired: invalid UTF-8 (which a lenient decoder turns into U+FFFD, i.e. into
 * other text than the bytes) is refused, and a byte order mark stays in the bytes and the text.
 * A string given instead of bytes stands for its UTF-8 encoding; one with a lone surrogate has no
 * faithful encoding and is refused the same way.
 */
export interface ProgramBytes {
  bytes: Uint8Array;
  sha256: string; // hex, of exactly `bytes`
  text: string | undefined; // undefined: not valid UTF-8
}

// With the u flag a surrogate pair is one code point, so only a lone surrogate is in category Cs.
const LONE_SURROGATE = /\p{Cs}/u;
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

export function programBytes(program: Uint8Array | string): ProgramBytes {
  const bytes = typeof program === "string" ? new TextEncoder().encode(program) : program;
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  return {
    bytes,
    sha256,
    text: typeof program === "string" ? (LONE_SURROGATE.test(program) ? undefined : program) : decode(bytes),
  };
}

function decode(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}
