import { describe, expect, it } from "vitest";
import { RequestId } from "../../src/model/index.js";
import { timeOrderedToken } from "../../src/receipt/index.js";
import { newRequestId } from "../../src/store/index.js";

describe("timeOrderedToken", () => {
  it("is 22 base64url characters, as request ids and jtis must be", () => {
    const token = timeOrderedToken(Date.now());
    expect(token).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(RequestId.safeParse(newRequestId()).success).toBe(true);
  });

  it("sorts as the time does (bytewise, as the databases compare text)", () => {
    const period = 2 ** 36; // the time part wraps after this many milliseconds (795 days)
    const base = 25 * period; // the start of the period that runs from June 2024
    const times = [0, 1, 63, 64, 4095, 4096, 2 ** 30, period - 1].map((t) => base + t);
    const tokens = times.map((t) => timeOrderedToken(t));
    const sorted = [...tokens].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    expect(sorted).toEqual(tokens);
  });

  it("differs in its random part within one millisecond", () => {
    const tokens = Array.from({ length: 1000 }, () => timeOrderedToken(1_764_000_000_000));
    expect(new Set(tokens).size).toBe(1000);
    expect(new Set(tokens.map((t) => t.slice(0, 6))).size).toBe(1);
    expect(new Set(tokens.map((t) => t.slice(6))).size).toBe(1000);
  });
});
