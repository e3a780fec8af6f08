import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { programBytes } from "../../src/model/program-bytes.js";

const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex");

describe("the one UTF-8 rule for a program's bytes", () => {
  it("hashes exactly the bytes and decodes them, a byte order mark included", () => {
    const bytes = Buffer.from('\uFEFFconst a = "é😀";\r\n');
    const p = programBytes(bytes);
    expect(p.sha256).toBe(sha256(bytes));
    expect(p.text).toBe('\uFEFFconst a = "é😀";\r\n');
  });

  it("gives a string the hash of its UTF-8 encoding: the same facts for the text and its file", () => {
    const text = '\uFEFFconst a = "é😀";\n';
    expect(programBytes(text)).toEqual({ ...programBytes(Buffer.from(text)), bytes: new TextEncoder().encode(text) });
  });

  it("refuses invalid UTF-8 instead of repairing it, but still hashes the bytes", () => {
    for (const bad of [
      [0xff],
      [0xc3, 0x28],
      [0xe2, 0x82],
      [0xed, 0xa0, 0x80] /* an encoded surrogate */,
      [0xf8, 0x88, 0x80, 0x80, 0x80],
    ]) {
      const bytes = Buffer.concat([Buffer.from("const a = 1; // "), Buffer.from(bad)]);
      const p = programBytes(bytes);
      expect(p.text, JSON.stringify(bad)).toBeUndefined();
      expect(p.sha256).toBe(sha256(bytes));
    }
  });

  it("refuses a string with a lone surrogate: it has no faithful UTF-8 encoding", () => {
    expect(programBytes("const a = '\uD800';").text).toBeUndefined();
    expect(programBytes("const a = '\uDC00x';").text).toBeUndefined();
    expect(programBytes("const a = '\uD83D\uDE00';").text).toBe("const a = '\uD83D\uDE00';");
  });
});
