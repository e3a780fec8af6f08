import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, jsonEqual } from "../../src/constraint/canonical-json.js";
import type { Json } from "../../src/model/json.js";

/** The plain definition canonicalJson is written for speed from. */
function reference(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(reference).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${reference(value[k]!)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The same value with every object's keys in reverse order. */
function reversed(value: Json): Json {
  if (Array.isArray(value)) return value.map(reversed);
  if (value !== null && typeof value === "object")
    return Object.fromEntries(
      Object.keys(value)
        .reverse()
        .map((k) => [k, reversed(value[k]!)]),
    );
  return value;
}

// JSON values, with the numbers JSON writes as null, -0, and keys that look like JSON.
const json: fc.Arbitrary<Json> = fc.letrec<{ v: Json }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small" },
    fc.constantFrom<Json>(
      null,
      true,
      false,
      0,
      -0,
      1,
      1.5,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      "",
      "a",
      "A",
      "1",
      "null",
      '{"a":1}',
      "é\u2028",
    ),
    fc.array(tie("v"), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom("a", "b", "A", "", "1", "__proto__x", '"q"'), tie("v"), { maxKeys: 4 }),
  ),
})).v;

describe("canonicalJson", () => {
  it("writes what the plain definition writes", () => {
    fc.assert(
      fc.property(json, (v) => canonicalJson(v) === reference(v)),
      { numRuns: 2000 },
    );
  });

  it("sorts keys at every depth", () => {
    expect(canonicalJson({ b: [{ d: 1, c: null }], a: "x" })).toBe('{"a":"x","b":[{"c":null,"d":1}]}');
  });
});

describe("jsonEqual", () => {
  it("is equality of the canonical texts", () => {
    fc.assert(
      fc.property(
        json,
        json,
        (a, b) =>
          jsonEqual(a, b) ===
          (typeof a === "object" && a !== null && typeof b === "object" && b !== null
            ? reference(a) === reference(b)
            : a === b),
      ),
      { numRuns: 2000 },
    );
  });

  it("ignores key order, at every depth", () => {
    fc.assert(fc.property(json, (v) => jsonEqual(v, reversed(v)) === (typeof v !== "number" || !Number.isNaN(v))));
  });

  it("tells apart what differs only in type, length or a key", () => {
    expect(jsonEqual([1], { 0: 1 })).toBe(false);
    expect(jsonEqual(["1"], [1])).toBe(false);
    expect(jsonEqual([1, 2], [1])).toBe(false);
    expect(jsonEqual({ a: null }, { b: null })).toBe(false);
    expect(jsonEqual({ a: 1 }, { a: 1, b: 1 })).toBe(false);
    expect(jsonEqual([null], [Number.NaN])).toBe(true); // both written [null]
  });
});
