import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { holds, implies, narrow, satisfies } from "../../src/constraint/index.js";
import type { AbstractValue } from "../../src/model/abstract.js";
import type { ValueConstraint } from "../../src/model/constraint.js";
import type { Json } from "../../src/model/json.js";
import {
  addressConstraintArb,
  addressMemberArb,
  addressShapeArb,
  constraintArb,
  globArb,
  hostConstraintArb,
  smallMemberArb,
  smallShapeArb,
  isMember,
  jsonArb,
  urlMemberArb,
  urlShapeArb,
  valueWithMembers,
} from "./arbitraries.js";

describe("holds is sound against satisfies", () => {
  it("yes means every member satisfies, no means none does", () => {
    const seen = { yes: 0, no: 0, maybe: 0 };
    fc.assert(
      fc.property(constraintArb, valueWithMembers, (c, [v, members]) => {
        const verdict = holds(c, v);
        if (v.kind !== "const") seen[verdict]++;
        if (verdict === "yes") for (const m of members) expect(satisfies(c, m), JSON.stringify(m)).toBe(true);
        if (verdict === "no") for (const m of members) expect(satisfies(c, m), JSON.stringify(m)).toBe(false);
      }),
      { numRuns: 6000 },
    );
    // The property only bites if the static check often commits to an answer.
    expect(seen.yes).toBeGreaterThan(300);
    expect(seen.no).toBeGreaterThan(300);
  });
});

/**
 * holds (and narrow) against satisfies on one family of shapes and their members; the property
 * only bites if the static check often commits, hence the minimum yes and no counts.
 */
function assertShapesSound(
  constraints: fc.Arbitrary<ValueConstraint>,
  shapes: fc.Arbitrary<AbstractValue>,
  members: (v: AbstractValue) => fc.Arbitrary<Json>,
  least: { yes: number; no: number },
) {
  const seen = { yes: 0, no: 0, maybe: 0 };
  fc.assert(
    fc.property(
      constraints,
      shapes.chain((v) => fc.tuple(fc.constant(v), fc.array(members(v), { minLength: 1, maxLength: 16 }))),
      (c, [v, values]) => {
        const verdict = holds(c, v);
        seen[verdict]++;
        if (verdict !== "maybe")
          for (const m of values) expect(satisfies(c, m), JSON.stringify(m)).toBe(verdict === "yes");
        const narrowed = narrow(v, c);
        for (const m of values)
          if (satisfies(c, m)) expect(isMember(m, narrowed), JSON.stringify({ m, narrowed })).toBe(true);
      },
    ),
    { numRuns: 5000 },
  );
  expect(seen.yes).toBeGreaterThan(least.yes);
  expect(seen.no).toBeGreaterThan(least.no);
}

describe("holds is sound on partly known strings", () => {
  it("host_in on URL shapes: yes and no agree with the URL parser on every completion", () => {
    assertShapesSound(hostConstraintArb, urlShapeArb, urlMemberArb, { yes: 300, no: 300 });
  });

  it("globs and lengths over a three-letter alphabet", () => {
    assertShapesSound(
      fc.oneof(
        globArb,
        fc.integer({ min: 0, max: 6 }).map((max_length) => ({ max_length })),
      ),
      smallShapeArb,
      smallMemberArb,
      { yes: 150, no: 300 },
    );
  });

  it("email globs and address lists over case and trailing-dot variants", () => {
    assertShapesSound(addressConstraintArb, addressShapeArb, addressMemberArb, { yes: 150, no: 300 });
  });
});

describe("implies is sound", () => {
  it("a value satisfying the premise satisfies the conclusion", () => {
    let proven = 0;
    fc.assert(
      fc.property(constraintArb, constraintArb, fc.array(jsonArb, { minLength: 1, maxLength: 20 }), (p, c, values) => {
        if (p === c || !implies(p, c)) return;
        proven++;
        for (const x of [...values, ...values.map((x) => [x]), values]) {
          if (satisfies(p, x)) expect(satisfies(c, x), JSON.stringify(x)).toBe(true);
        }
      }),
      { numRuns: 8000 },
    );
    expect(proven).toBeGreaterThan(200);
  });

  it("premise members, as values and as lists, satisfy the conclusion", () => {
    fc.assert(
      fc.property(fc.array(jsonArb, { maxLength: 4 }), constraintArb, (members, c) => {
        if (!implies({ in: members }, c)) return;
        for (const x of [...members, members, [members]])
          if (satisfies({ in: members }, x)) expect(satisfies(c, x)).toBe(true);
      }),
      { numRuns: 4000 },
    );
  });
});

describe("narrow is sound", () => {
  it("a member of v that satisfies c is a member of narrow(v, c)", () => {
    fc.assert(
      fc.property(constraintArb, valueWithMembers, (c, [v, members]) => {
        const narrowed = narrow(v, c);
        for (const m of members)
          if (satisfies(c, m)) expect(isMember(m, narrowed), JSON.stringify({ m, narrowed })).toBe(true);
      }),
      { numRuns: 4000 },
    );
  });

  it("the member generator only produces members", () => {
    fc.assert(
      fc.property(valueWithMembers, ([v, members]) => {
        for (const m of members) expect(isMember(m, v)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });
});
