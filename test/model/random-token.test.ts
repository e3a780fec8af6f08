import { describe, expect, it } from "vitest";
import { randomToken } from "../../src/model/random-token.js";

describe("randomToken", () => {
  it("gives base64url of exactly the bytes asked for, never the same twice across pool refills", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const token = randomToken(16); // 2000 × 16 bytes: several refills of the pool
      expect(token).toMatch(/^[A-Za-z0-9_-]{22}$/);
      seen.add(token);
    }
    expect(seen.size).toBe(2000);
    expect(Buffer.from(randomToken(32), "base64url")).toHaveLength(32);
    expect(Buffer.from(randomToken(4096), "base64url")).toHaveLength(4096);
  });

  it("hands out bytes that look random: every byte value turns up, none is stuck at zero", () => {
    const counts = new Array<number>(256).fill(0);
    for (let i = 0; i < 1000; i++) for (const b of Buffer.from(randomToken(16), "base64url")) counts[b]!++;
    expect(counts.every((n) => n > 0)).toBe(true);
    expect(Math.max(...counts)).toBeLessThan(150); // 16,000 bytes over 256 values: about 62 each
  });

  it("refuses a size that is not a whole number of bytes from 1 to 4096", () => {
    for (const bad of [0, -1, 1.5, 4097, Number.NaN]) expect(() => randomToken(bad)).toThrow(RangeError);
  });
});
