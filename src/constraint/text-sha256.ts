import { createHash } from "node:crypto";

/** The SHA-256 of a text's UTF-8 bytes, lower-case hex: what a `sha256` constraint compares. */
export function textSha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}
