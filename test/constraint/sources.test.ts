import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { holds, holdsWithSources } from "../../src/constraint/holds.js";
import { resolutions, resolvesToItself } from "../../src/constraint/sources.js";
import type { ValueConstraint, Verdict3 } from "../../src/model/constraint.js";
import type { Provenance } from "../../src/model/abstract.js";
import { abstractArb, constraintArb } from "./arbitraries.js";

// Constraints with provenance conditions and the neutral parts `simplified` drops mixed in.
const withSources: fc.Arbitrary<ValueConstraint> = fc.letrec<{ c: ValueConstraint }>((tie) => ({
  c: fc.oneof(
    { depthSize: "small" },
    { weight: 4, arbitrary: constraintArb },
    {
      weight: 1,
      arbitrary: fc.constantFrom<ValueConstraint>(
        { untrusted: true },
        { untrusted: false },
        { from: ["email.get_draft"] },
        { all: [] },
        { not: { all: [] } },
      ),
    },
    { weight: 1, arbitrary: fc.array(tie("c"), { maxLength: 3 }).map((all) => ({ all })) },
    { weight: 1, arbitrary: fc.array(tie("c"), { maxLength: 3 }).map((any) => ({ any })) },
    { weight: 1, arbitrary: tie("c").map((not) => ({ not })) },
  ),
})).c;
const sources: fc.Arbitrary<Provenance[]> = fc.subarray([
  { source: "a draft", untrusted: true, op: "email.get_draft" },
  { source: "a page", untrusted: true },
  { source: "the program", untrusted: false },
]);

/** holdsWithSources as it reads without its shortcut: every way, agreeing, or maybe. */
function byResolutions(c: ValueConstraint, v: Parameters<typeof holds>[1], s: Provenance[]): Verdict3 {
  const ways = resolutions(c, s);
  if (ways === undefined) return "maybe";
  const verdicts = ways.map((way) => holds(way, v));
  return verdicts.every((x) => x === verdicts[0]) ? verdicts[0]! : "maybe";
}

describe("resolvesToItself", () => {
  it("holds only where the only way of a constraint is the constraint itself", () => {
    fc.assert(
      fc.property(withSources, sources, (c, s) => {
        if (resolvesToItself(c)) expect(resolutions(c, s)).toEqual([c]);
      }),
      { numRuns: 3000 },
    );
  });

  it("says no for provenance conditions, neutral parts, lone parts and an empty any", () => {
    for (const c of [
      { untrusted: true },
      { all: [{ all: [] }, { eq: 1 }] },
      { any: [{ not: { all: [] } }, { eq: 1 }] },
      { all: [{ eq: 1 }] },
      { any: [{ eq: 1 }] },
      { any: [] },
      { not: { from: ["x.y"] } },
    ] as ValueConstraint[]) {
      expect(resolvesToItself(c)).toBe(false);
    }
    expect(resolvesToItself({ all: [] })).toBe(true);
    expect(resolvesToItself({ any: [{ eq: 1 }, { eq: 2 }] })).toBe(true);
  });

  it("leaves holdsWithSources' verdicts as resolving them gives", () => {
    fc.assert(
      fc.property(withSources, abstractArb, sources, (c, v, s) => holdsWithSources(c, v, s) === byResolutions(c, v, s)),
      { numRuns: 3000 },
    );
  });
});
