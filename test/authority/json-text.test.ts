import { describe, expect, it } from "vitest";
import { jsonNestedDeeper, jsonText } from "../../src/authority/json-text.js";
import { deepFreeze } from "../../src/model/index.js";

describe("jsonText", () => {
  it("answers JSON.stringify's text", () => {
    const value = deepFreeze({ kind: "auto_approved", grants: [{ op: "fs.read", n: 1.5, s: 'q"\u2028' }], none: null });
    expect(jsonText(value)).toBe(JSON.stringify(value));
    expect(jsonText(value)).toBe(JSON.stringify(value)); // remembered, unchanged
  });

  it("never remembers a value that can still change", () => {
    const open = { kind: "ask", grants: [] as string[] };
    expect(jsonText(open)).toBe('{"kind":"ask","grants":[]}');
    open.grants.push("x");
    expect(jsonText(open)).toBe('{"kind":"ask","grants":["x"]}');
    const shallow = Object.freeze({ grants: ["a"] }); // frozen at the top only: its array can change
    expect(jsonText(shallow)).toBe('{"grants":["a"]}');
    shallow.grants.push("b");
    expect(jsonText(shallow)).toBe('{"grants":["a","b"]}');
  });
});

describe("jsonNestedDeeper", () => {
  const nested = (n: number, inner = "") => "[".repeat(n) + inner + "]".repeat(n);

  it("counts the arrays and objects open at once, up to the limit and past it", () => {
    expect(jsonNestedDeeper('{"a":[{"b":[1]}]}', 4)).toBe(false);
    expect(jsonNestedDeeper('{"a":[{"b":[1]}]}', 3)).toBe(true);
    expect(jsonNestedDeeper("[[],[],[],{}]", 2)).toBe(false); // siblings close before the next opens
    expect(jsonNestedDeeper("[[],[],[[]]]", 3)).toBe(false);
    expect(jsonNestedDeeper("[[],[],[[]]]", 2)).toBe(true);
    expect(jsonNestedDeeper(nested(8), 8)).toBe(false);
    expect(jsonNestedDeeper(nested(9), 8)).toBe(true);
    expect(jsonNestedDeeper("1", 0)).toBe(false);
    expect(jsonNestedDeeper("", 8)).toBe(false);
  });

  it("skips brackets inside strings, however they are escaped", () => {
    expect(jsonNestedDeeper(JSON.stringify({ program: "[[[[[[[[[[{{{{{{{{{{" }), 1)).toBe(false);
    expect(jsonNestedDeeper(JSON.stringify(['"[[[[', "\\", '\\"{{{{', "[[\\\\"]), 1)).toBe(false);
    expect(jsonNestedDeeper('["\\\\"]', 1)).toBe(false); // an escaped backslash ends before the closing quote
    expect(jsonNestedDeeper('["\\\\",[[]]]', 2)).toBe(true); // ...so what follows is structure again
    expect(jsonNestedDeeper('["\\"[[[[[[["]', 1)).toBe(false); // an escaped quote does not end the string
    expect(jsonNestedDeeper(`{${JSON.stringify("a[{\\u0022".repeat(1000))}:${nested(3)}}`, 4)).toBe(false);
  });

  it("answers what JSON.parse would count, for any value, and for unbalanced text does not throw", () => {
    const depthOf = (v: unknown): number =>
      Array.isArray(v)
        ? 1 + Math.max(0, ...v.map(depthOf))
        : v !== null && typeof v === "object"
          ? 1 + Math.max(0, ...Object.values(v).map(depthOf))
          : 0;
    const values: unknown[] = [
      { a: ["]", { "}": "[\\" }] },
      [[['"', "\\\\"]], {}],
      { "[": { "{": { '\\"[': [] } } },
      'x]"]',
    ];
    for (const v of values) {
      const depth = depthOf(v);
      expect([v, jsonNestedDeeper(JSON.stringify(v), depth)]).toEqual([v, false]);
      expect([v, jsonNestedDeeper(JSON.stringify(v), depth - 1)]).toEqual([v, depth > 0]);
    }
    expect(jsonNestedDeeper("]]]]]", 1)).toBe(false);
    expect(jsonNestedDeeper('["unterminated', 1)).toBe(false);
    expect(jsonNestedDeeper('"\\', 1)).toBe(false);
  });
});
