// An audit entry's details are written as JSON.stringify's text when that is their canonical text:
// for every details object the text must be canonicalJson's, or the chain would not verify.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/constraint/index.js";
import type { Json } from "../../src/model/index.js";
import { canonicalDetails } from "../../src/store/audit-chain.js";

const scalar = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
const value: fc.Arbitrary<Json> = fc.oneof(
  scalar,
  fc.array(scalar, { maxLength: 3 }),
  fc.dictionary(fc.string(), scalar, { maxKeys: 3 }),
);
const key = fc.oneof(
  fc.string(),
  fc.constantFrom("", "0", "1", "2", "10", "a", "B", "é", "exp", "jti", "__proto__"),
  fc.nat().map(String),
);

describe("canonicalDetails", () => {
  it("writes canonicalJson's text for any details, sorted or not, flat or not", () => {
    fc.assert(
      fc.property(fc.dictionary(key, value, { maxKeys: 6 }), (details) => {
        expect(canonicalDetails(details)).toBe(canonicalJson(details));
      }),
      { numRuns: 2000 },
    );
  });

  it("takes JSON.stringify's text for flat details in sorted order, and sorts any other", () => {
    expect(canonicalDetails({ exp: 5, jti: "x" })).toBe('{"exp":5,"jti":"x"}');
    expect(canonicalDetails({ jti: "x", exp: 5 })).toBe('{"exp":5,"jti":"x"}');
    expect(canonicalDetails({ "2": 1, "10": 2 })).toBe('{"10":2,"2":1}'); // integer keys come first in JSON.stringify, in number order
    expect(canonicalDetails({ b: { d: 1, c: 2 }, a: [1] })).toBe('{"a":[1],"b":{"c":2,"d":1}}');
  });
});
