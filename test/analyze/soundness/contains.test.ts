import { describe, expect, it } from "vitest";
import type { AbstractValue } from "../../../src/model/abstract.js";
import { contains } from "./contains.js";

const str = (prefix: string, suffix: string): AbstractValue => ({ kind: "string", prefix, suffix, provenance: [] });

// The membership function is the yardstick of the soundness test: it must not be lenient by accident.
describe("contains", () => {
  const cases: [string, AbstractValue, unknown, boolean][] = [
    ["unknown holds anything", { kind: "unknown", provenance: [] }, { a: [1] }, true],
    [
      "const by deep equality, key order ignored",
      { kind: "const", values: [{ a: 1, b: [2] }] },
      { b: [2], a: 1 },
      true,
    ],
    ["const rejects another value", { kind: "const", values: ["a", "b"] }, "c", false],
    ["const does not coerce", { kind: "const", values: [1] }, "1", false],
    ["string with prefix and suffix", str("ab", "yz"), "ab--yz", true],
    ["string: wrong prefix", str("ab", ""), "xab", false],
    ["string: wrong suffix", str("", "yz"), "yzx", false],
    ["string: not a string", str("", ""), 5, false],
    [
      "array within its length",
      { kind: "array", element: str("a", ""), length: { min: 1, max: 2 } },
      ["a1", "a2"],
      true,
    ],
    ["array too long", { kind: "array", element: str("a", ""), length: { min: 1, max: 1 } }, ["a1", "a2"], false],
    ["array too short", { kind: "array", element: str("a", ""), length: { min: 3, max: null } }, ["a1", "a2"], false],
    [
      "array: an element outside",
      { kind: "array", element: str("a", ""), length: { min: 0, max: null } },
      ["a1", "b"],
      false,
    ],
    ["record: fields checked", { kind: "record", fields: { x: { kind: "const", values: [1] } } }, { x: 1 }, true],
    [
      "record: an extra field",
      { kind: "record", fields: { x: { kind: "const", values: [1] } } },
      { x: 1, y: 2 },
      false,
    ],
    [
      "record: a missing field reads as null",
      { kind: "record", fields: { x: { kind: "const", values: [1] } } },
      {},
      false,
    ],
    [
      "record: a missing field that may be null",
      { kind: "record", fields: { x: { kind: "const", values: [1, null] } } },
      {},
      true,
    ],
    ["record: not an array", { kind: "record", fields: {} }, [], false],
  ];
  for (const [name, abstract, value, expected] of cases) {
    it(name, () => expect(contains(abstract, value as never)).toBe(expected));
  }
});
