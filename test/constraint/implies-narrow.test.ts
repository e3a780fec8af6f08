import { describe, expect, it } from "vitest";
import { implies, narrow } from "../../src/constraint/index.js";
import type { AbstractValue } from "../../src/model/abstract.js";
import type { ValueConstraint } from "../../src/model/constraint.js";
import type { Json } from "../../src/model/json.js";

describe("implies", () => {
  it.each<[string, ValueConstraint, ValueConstraint, boolean]>([
    ["identical", { glob: "*@x.com" }, { glob: "*@x.com" }, true],
    ["in subset", { in: ["a", "b"] }, { in: ["a", "b", "c"] }, true],
    ["in not a subset", { in: ["a", "d"] }, { in: ["a", "b", "c"] }, false],
    ["eq member", { eq: "a" }, { in: ["a", "b"] }, true],
    ["eq non-member", { eq: "z" }, { in: ["a", "b"] }, false],
    ["in members match a glob", { in: ["a@x.com", "b@x.com"] }, { glob: "*@x.com" }, true],
    ["in members, one outside the glob", { in: ["a@x.com", "b@y.com"] }, { glob: "*@x.com" }, false],
    ["in does not bound list length", { in: ["a"] }, { max_length: 5 }, false],
    ["in members are paths under", { in: ["/a/b", "/a/c/../d"] }, { under: "/a" }, true],
    ["empty in implies element-wise constraints", { in: [] }, { eq: "x" }, true],
    ["under a deeper base", { under: "/a/b" }, { under: "/a" }, true],
    ["under the same base written differently", { under: "/a/./b/" }, { under: "/a/b" }, true],
    ["under a sibling prefix", { under: "/ab" }, { under: "/a" }, false],
    ["under a wider base does not imply", { under: "/a" }, { under: "/a/b" }, false],
    ["hosts subset", { host_in: ["api.x.com"] }, { host_in: ["api.x.com", "y.com"] }, true],
    ["hosts compared as parsed", { host_in: ["API.X.COM"] }, { host_in: ["api.x.com"] }, true],
    ["host with port into host without", { host_in: ["api.x.com:8443"] }, { host_in: ["api.x.com"] }, true],
    ["host without port into host with", { host_in: ["api.x.com"] }, { host_in: ["api.x.com:8443"] }, false],
    ["host not covered", { host_in: ["evil.com"] }, { host_in: ["api.x.com"] }, false],
    ["max_length smaller", { max_length: 3 }, { max_length: 5 }, true],
    ["max_length larger", { max_length: 6 }, { max_length: 5 }, false],
    ["not_in superset", { not_in: ["a", "b"] }, { not_in: ["a"] }, true],
    ["not_in subset", { not_in: ["a"] }, { not_in: ["a", "b"] }, false],
    ["not_in into not eq", { not_in: ["a", "b"] }, { not: { eq: "b" } }, true],
    ["contrapositive", { not: { under: "/a" } }, { not: { under: "/a/b" } }, true],
    ["a conjunct implies", { all: [{ in: ["a"] }, { max_length: 3 }] }, { in: ["a", "b"] }, true],
    ["all conjuncts implied", { in: ["a"] }, { all: [{ in: ["a", "b"] }, { glob: "a*" }] }, true],
    ["one conjunct not implied", { in: ["a"] }, { all: [{ in: ["a", "b"] }, { glob: "b*" }] }, false],
    ["every disjunct implies", { any: [{ eq: "a" }, { eq: "b" }] }, { in: ["a", "b"] }, true],
    ["a disjunct does not", { any: [{ eq: "a" }, { eq: "z" }] }, { in: ["a", "b"] }, false],
    ["implies a disjunct", { eq: "a" }, { any: [{ eq: "z" }, { in: ["a"] }] }, true],
    // Over lists `any` goes element by element while max_length measures the list.
    ["disjuncts of lengths do not lift to lists", { any: [{ max_length: 1 }] }, { max_length: 1 }, false],
    ["length into a disjunct of lengths", { max_length: 3 }, { any: [{ max_length: 5 }] }, false],
    ["glob to a different glob", { glob: "a*" }, { glob: "*" }, false],
    // An address member stands for every string of its canonical form (A@X.COM. too).
    ["address members into an email glob", { in: ["a@x.com"] }, { glob: "*@X.COM" }, true],
    ["address members into an address list", { in: ["a@x.com"] }, { in: ["A@x.com", "b@y.com"] }, true],
    ["address members into a case-sensitive glob", { in: ["a@x.com"] }, { glob: "a*" }, false],
    ["address members into a prefix", { in: ["a@x.com"] }, { prefix: "a" }, false],
    ["address members into a length", { in: ["a@x.com"] }, { not: { max_length: 2 } }, false],
    [
      "not_in an address into not_in its other form",
      { not_in: ["ceo@rival.com"] },
      { not_in: ["CEO@rival.com."] },
      true,
    ],
    ["prefix into a shorter prefix", { prefix: "https://api.x.com/" }, { prefix: "https://" }, true],
    ["prefix into a longer prefix", { prefix: "https://" }, { prefix: "https://api.x.com/" }, false],
    ["suffix into a shorter suffix", { suffix: "@x.com" }, { suffix: ".com" }, true],
    ["min_length larger", { min_length: 3 }, { min_length: 2 }, true],
    ["min_length smaller", { min_length: 1 }, { min_length: 2 }, false],
    ["types into more types", { type: ["string"] }, { type: ["string", "null"] }, true],
    ["types into fewer types", { type: ["string", "null"] }, { type: ["string"] }, false],
    ["elements into wider elements", { elements: { in: ["a"] } }, { elements: { in: ["a", "b"] } }, true],
    [
      "fields into wider fields",
      { fields: { a: { eq: 1 } } },
      { fields: { a: { in: [1, 2] }, b: { type: ["null"] } } },
      true,
    ],
    [
      "fields, a conclusion field null fails",
      { fields: { a: { eq: 1 } } },
      { fields: { a: { eq: 1 }, b: { type: ["string"] } } },
      false,
    ],
    [
      "fields with a key the conclusion lacks",
      { fields: { a: { eq: 1 }, b: { eq: 2 } } },
      { fields: { a: { eq: 1 } } },
      false,
    ],
    ["anything implies the empty all", { prefix: "a" }, { all: [] }, true],
    ["type is not element-wise: no proof through in", { in: ["a"] }, { type: ["string"] }, false],
  ])("%s", (_name, premise, conclusion, expected) => {
    expect(implies(premise, conclusion)).toBe(expected);
  });
});

describe("narrow", () => {
  const c = (...values: Json[]): AbstractValue => ({ kind: "const", values });
  const unknown: AbstractValue = {
    kind: "unknown",
    provenance: [{ source: "read from email.get_draft", untrusted: true }],
  };
  const str: AbstractValue = { kind: "string", prefix: "/r/", suffix: ".txt", provenance: [] };
  const address: AbstractValue = { kind: "string", prefix: "", suffix: "@x.com", provenance: [] };
  it.each<[string, AbstractValue, ValueConstraint, AbstractValue]>([
    ["constants filtered", c("a", "b", "z"), { in: ["a", "b"] }, c("a", "b")],
    ["constants, nothing left: unchanged", c("z"), { in: ["a"] }, c("z")],
    ["string to the listed members", str, { in: ["/r/a.txt", "/s/b.txt", 3] }, c("/r/a.txt")],
    ["string by eq", str, { eq: "/r/a.txt" }, c("/r/a.txt")],
    ["string, nothing listed fits: unchanged", str, { in: ["/s/b.txt"] }, str],
    ["string by glob: unchanged", str, { glob: "/r/*" }, str],
    // An address stands for every string of its canonical form (BOB@X.com. too): no constant set.
    ["string by a listed address: unchanged", address, { in: ["bob@x.com", "eve@y.com"] }, address],
    ["string, no listed address fits: unchanged", address, { in: ["eve@y.com"] }, address],
    ["string by a longer prefix", str, { prefix: "/r/a/" }, { ...str, prefix: "/r/a/" }],
    ["string by a longer suffix", str, { suffix: "b.txt" }, { ...str, suffix: "b.txt" }],
    ["string by a prefix it already has: unchanged", str, { prefix: "/r" }, str],
    ["unknown stays unknown (it may be a list)", unknown, { in: ["a"] }, unknown],
    [
      "array element narrowed",
      { kind: "array", element: unknown, length: { min: 1, max: null } },
      { in: ["a", "b"] },
      { kind: "array", element: unknown, length: { min: 1, max: null } },
    ],
    [
      "array of strings narrowed to members",
      { kind: "array", element: str, length: { min: 1, max: null } },
      { in: ["/r/a.txt"] },
      { kind: "array", element: c("/r/a.txt"), length: { min: 1, max: null } },
    ],
    [
      "array length capped",
      { kind: "array", element: unknown, length: { min: 1, max: null } },
      { max_length: 3 },
      { kind: "array", element: unknown, length: { min: 1, max: 3 } },
    ],
    [
      "all narrows by each conjunct",
      { kind: "array", element: str, length: { min: 0, max: 10 } },
      { all: [{ max_length: 2 }, { min_length: 1 }, { in: ["/r/a.txt"] }] },
      { kind: "array", element: c("/r/a.txt"), length: { min: 1, max: 2 } },
    ],
    [
      "elements narrows the element",
      { kind: "array", element: str, length: { min: 0, max: null } },
      { elements: { in: ["/r/a.txt"] } },
      { kind: "array", element: c("/r/a.txt"), length: { min: 0, max: null } },
    ],
    [
      "array by type: unchanged",
      { kind: "array", element: str, length: { min: 0, max: 1 } },
      { type: ["array"] },
      { kind: "array", element: str, length: { min: 0, max: 1 } },
    ],
    [
      "record fields narrowed one by one",
      { kind: "record", fields: { a: c("x", "y"), b: str } },
      { fields: { a: { eq: "x" } } },
      { kind: "record", fields: { a: c("x"), b: str } },
    ],
  ])("%s", (_name, v, constraint, expected) => {
    expect(narrow(v, constraint)).toEqual(expected);
  });
});
