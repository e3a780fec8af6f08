import { describe, expect, it } from "vitest";
import { normalizePath, satisfies, urlHostPort } from "../../src/constraint/index.js";
import { memoizeString } from "../../src/constraint/string-memo.js";

describe("memoizeString", () => {
  const counted = () => {
    const seen: string[] = [];
    const fn = memoizeString((s: string) => (seen.push(s), s.startsWith("/") ? s.toUpperCase() : null), 3, 10);
    return { seen, fn };
  };

  it("computes once per exact string, null results included", () => {
    const { seen, fn } = counted();
    expect([fn("/a"), fn("/a"), fn("x"), fn("x"), fn("/A")]).toEqual(["/A", "/A", null, null, "/A"]);
    expect(seen).toEqual(["/a", "x", "/A"]);
  });

  it("keys on the exact string: no trimming, case folding or normalization", () => {
    const { seen, fn } = counted();
    for (const s of ["/a", "/a ", " /a", "/A", "/a/", "/a\0"]) fn(s);
    fn("/a");
    expect(seen).toEqual(["/a", "/a ", " /a", "/A", "/a/", "/a\0", "/a"]); // size 3: it started over at "/A"
  });

  it("starts over when full, and never keeps strings longer than the limit", () => {
    const { seen, fn } = counted();
    for (const s of ["/1", "/2", "/3", "/4", "/1", "/4"]) fn(s);
    expect(seen).toEqual(["/1", "/2", "/3", "/4", "/1"]);
    const long = `/${"x".repeat(10)}`;
    fn(long);
    fn(long);
    expect(seen.filter((s) => s === long)).toHaveLength(2);
  });
});

describe("remembered checks give the answers of a first check", () => {
  it("urlHostPort results are frozen, so one caller cannot change another's answer", () => {
    const target = urlHostPort("https://api.x.com/a")!;
    expect(Object.isFrozen(target)).toBe(true);
    expect(() => {
      (target as { host: string }).host = "evil.com";
    }).toThrow(TypeError);
    expect(urlHostPort("https://api.x.com/a")).toEqual({ host: "api.x.com", port: 443 });
  });

  it("host_in and under repeat their answers, including refusals", () => {
    for (let i = 0; i < 3; i++) {
      expect(satisfies({ host_in: ["api.x.com"] }, "https://api.x.com@evil.com/")).toBe(false);
      expect(satisfies({ host_in: ["API.X.com:443"] }, "https://api.x.com/")).toBe(true);
      expect(satisfies({ host_in: ["api.x.com:8443"] }, "https://api.x.com/")).toBe(false);
      expect(satisfies({ under: "/home/u/Sandbox" }, "/home/u/Sandbox/../.ssh/id")).toBe(false);
      expect(satisfies({ under: "/home/u/Sandbox" }, "/home/u/Sandbox/./a//b")).toBe(true);
      expect(normalizePath("~/Sandbox")).toBeNull();
    }
  });

  it("long values are checked without being remembered, with the same answer", () => {
    const url = `https://api.x.com/${"a".repeat(5000)}`;
    const path = `/home/u/Sandbox/${"b/".repeat(3000)}..`;
    for (let i = 0; i < 2; i++) {
      expect(satisfies({ host_in: ["api.x.com"] }, url)).toBe(true);
      expect(satisfies({ under: "/home/u/Sandbox" }, path)).toBe(true);
    }
  });
});
