import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { constraintOf, holds, satisfies } from "../../src/constraint/index.js";
import type { AbstractValue } from "../../src/model/abstract.js";
import type { ValueConstraint } from "../../src/model/constraint.js";
import type { Json } from "../../src/model/json.js";
import { sameValue } from "../../src/constraint/email-address.js";
import { abstractArb, jsonArb, memberArb } from "./arbitraries.js";

const c = (...values: Json[]): AbstractValue => ({ kind: "const", values });
const str = (prefix: string, suffix = ""): AbstractValue => ({ kind: "string", prefix, suffix, provenance: [] });
const arr = (element: AbstractValue, min: number, max: number | null): AbstractValue => ({
  kind: "array",
  element,
  length: { min, max },
});
const unknown: AbstractValue = { kind: "unknown", provenance: [] };

describe("constraintOf: the facts as a constraint", () => {
  it.each<[string, AbstractValue[], ValueConstraint | undefined]>([
    ["constants, typed", [c("a", "b")], { all: [{ type: ["string"] }, { in: ["a", "b"] }] }],
    [
      "constants of several sites, once each",
      [c("a"), c("a", 1)],
      { all: [{ type: ["string", "number"] }, { in: ["a", 1] }] },
    ],
    ["null alone is its type", [c(null)], { type: ["null"] }],
    [
      "null or a string",
      [c(null, "text/plain")],
      { all: [{ type: ["null", "string"] }, { any: [{ type: ["null"] }, { in: ["text/plain"] }] }] },
    ],
    [
      "a URL with a query string: exact prefix",
      [str("https://api.x.com/v1?q=", "&n=*")],
      { all: [{ type: ["string"] }, { all: [{ prefix: "https://api.x.com/v1?q=" }, { suffix: "&n=*" }] }] },
    ],
    ["any string", [str("")], { type: ["string"] }],
    [
      "a template or a constant",
      [str("/r/"), c("/s/a")],
      { all: [{ type: ["string"] }, { any: [{ in: ["/s/a"] }, { prefix: "/r/" }] }] },
    ],
    [
      "a list: type, length range, elements",
      [arr(c("a@x.com"), 1, 2)],
      {
        all: [
          { type: ["array"] },
          { min_length: 1 },
          { max_length: 2 },
          { elements: { all: [{ type: ["string"] }, { in: ["a@x.com"] }] } },
        ],
      },
    ],
    [
      "an unbounded list of any strings",
      [arr(str(""), 0, null)],
      { all: [{ type: ["array"] }, { elements: { type: ["string"] } }] },
    ],
    [
      "constant lists join",
      [c(["a"], ["b", "c"]), c([])],
      {
        all: [
          { type: ["array"] },
          { max_length: 2 },
          { elements: { all: [{ type: ["string"] }, { in: ["a", "b", "c"] }] } },
        ],
      },
    ],
    ["the empty list", [c([])], { all: [{ type: ["array"] }, { max_length: 0 }] }],
    ["a list of unknowns", [arr(unknown, 1, 3)], { all: [{ type: ["array"] }, { min_length: 1 }, { max_length: 3 }] }],
    [
      "a record, an unknown field is anything",
      [{ kind: "record", fields: { a: c(1), b: unknown } }],
      { all: [{ type: ["object"] }, { fields: { a: { all: [{ type: ["number"] }, { in: [1] }] }, b: { all: [] } } }] },
    ],
    ["unknown: nothing to pin", [c("a"), unknown], undefined],
    ["no value", [], undefined],
  ])("%s", (_name, values, expected) => {
    expect(constraintOf(values)).toEqual(expected);
  });

  it("refuses what the facts rule out: a list of the constants, another type, another start", () => {
    expect(satisfies(constraintOf([c("a")])!, ["a"])).toBe(false);
    expect(satisfies(constraintOf([arr(c("a"), 1, 1)])!, "a")).toBe(false);
    expect(satisfies(constraintOf([arr(c("a"), 1, 1)])!, [["a"]])).toBe(false);
    expect(satisfies(constraintOf([arr(c("a"), 1, 1)])!, ["a", "a"])).toBe(false);
    expect(satisfies(constraintOf([str("https://api.x.com/")])!, "https://api.x.com.evil.com/")).toBe(false);
    expect(satisfies(constraintOf([{ kind: "record", fields: { a: c(1) } }])!, { a: 1, b: 2 })).toBe(false);
  });

  it("every member of every value satisfies it, and the static check agrees (property)", () => {
    fc.assert(
      fc.property(
        fc
          .array(abstractArb, { minLength: 1, maxLength: 3 })
          .chain((vs) =>
            fc.tuple(fc.constant(vs), fc.array(fc.oneof(...vs.map(memberArb)), { minLength: 1, maxLength: 10 })),
          ),
        ([values, members]) => {
          const constraint = constraintOf(values);
          if (constraint === undefined) {
            expect(values.some((v) => v.kind === "unknown")).toBe(true);
            return;
          }
          for (const m of members) expect(satisfies(constraint, m), JSON.stringify({ constraint, m })).toBe(true);
          for (const v of values) expect(holds(constraint, v), JSON.stringify({ constraint, v })).toBe("yes");
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("constants pin exactly: no other JSON value satisfies their constraint (property)", () => {
    fc.assert(
      fc.property(
        fc.array(
          jsonArb.filter((x) => !Array.isArray(x)),
          { minLength: 1, maxLength: 4 },
        ),
        jsonArb,
        (values, other) => {
          const constraint = constraintOf([c(...values)])!;
          const member = values.some((x) => sameValue(x, other));
          if (!member) expect(satisfies(constraint, other), JSON.stringify({ values, other })).toBe(false);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
