import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { holdsEffect, satisfiesCall, type Call } from "../../src/constraint/index.js";
import type { AbstractValue } from "../../src/model/abstract.js";
import type { EffectConstraint } from "../../src/model/constraint.js";
import type { Effect } from "../../src/model/facts.js";
import type { Json } from "../../src/model/json.js";
import { abstractArb, constraintArb, memberArb } from "./arbitraries.js";
import { INPUTS, effect, manifests } from "./effects.js";

// Recipient-like values that collide often, so that distinct and in are decided both ways.
const small: fc.Arbitrary<Json> = fc.constantFrom("a", "b", "c", null);
const argArb: fc.Arbitrary<AbstractValue> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .array(fc.oneof(small, fc.array(small, { maxLength: 3 })), { minLength: 1, maxLength: 3 })
      .map((values) => ({ kind: "const" as const, values })),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({
        element: fc
          .array(small, { minLength: 1, maxLength: 3 })
          .map((values): AbstractValue => ({ kind: "const", values })),
        min: fc.nat(3),
        extra: fc.option(fc.nat(2)),
      })
      .map(
        ({ element, min, extra }): AbstractValue => ({
          kind: "array",
          element,
          length: { min, max: extra === null ? null : min + extra },
        }),
      ),
  },
  { weight: 2, arbitrary: abstractArb },
);

const effectArb: fc.Arbitrary<Effect> = fc
  .record({
    op: fc.constantFrom(...Object.keys(INPUTS)),
    args: fc.dictionary(fc.constantFrom("to", "path", "id", "subject", "draft_id", "content"), argArb, { maxKeys: 3 }),
    min: fc.nat(2),
    extra: fc.option(fc.nat(2)),
  })
  .map(({ op, args, min, extra }) => {
    const declared = Object.fromEntries(Object.entries(args).filter(([k]) => INPUTS[op]!.includes(k)));
    return effect(op, declared, { min, max: extra === null ? null : min + extra });
  });

const effectConstraintArb: fc.Arbitrary<EffectConstraint> = fc.record(
  {
    op: fc.constantFrom("*", "email.*", "email.send_*", "email.send_email", "fs.write_file", "email.get_draft"),
    args: fc.dictionary(
      fc.constantFrom("to", "path", "id", "subject"),
      fc.oneof(
        constraintArb,
        small.map((x) => ({ in: [x, "a"] })),
      ),
      { minKeys: 1, maxKeys: 2 },
    ),
    count: fc.nat(4).map((max) => ({ max })),
    distinct: fc.constantFrom("to", "path", "id"),
  },
  { requiredKeys: ["op"] },
);

// A run: each effect happens a number of times within its count range, with members of its
// abstract arguments, in some interleaving.
function runArb(effects: readonly Effect[]): fc.Arbitrary<Call[]> {
  const perEffect = effects.map((e) =>
    fc.integer({ min: e.count.min, max: e.count.max ?? e.count.min + 3 }).chain((n) =>
      fc
        .array(fc.record(Object.fromEntries(Object.entries(e.args).map(([k, v]) => [k, memberArb(v)]))), {
          minLength: n,
          maxLength: n,
        })
        .map((argsList) => argsList.map((args): Call => ({ op: e.op, args: args as Record<string, Json> }))),
    ),
  );
  return fc.tuple(...perEffect).chain((lists) => {
    const calls = lists.flat();
    return calls.length === 0 ? fc.constant(calls) : fc.shuffledSubarray(calls, { minLength: calls.length });
  });
}

// Effects of the email connector whose recipients collide often.
const emailEffectArb: fc.Arbitrary<Effect> = fc
  .record({
    op: fc.constantFrom(
      "email.send_email",
      "email.draft_email",
      "email.send_email",
      "email.send_draft",
      "email.get_draft",
    ),
    to: argArb,
    min: fc.nat(2),
    extra: fc.option(fc.nat(2)),
  })
  .map(({ op, to, min, extra }) =>
    effect(op, INPUTS[op]!.includes("to") ? { to } : {}, { min, max: extra === null ? null : min + extra }),
  );

function assertSound(constraints: fc.Arbitrary<EffectConstraint>, effects: fc.Arbitrary<Effect>, decided: number) {
  const seen = { yes: 0, no: 0, maybe: 0 };
  fc.assert(
    fc.property(
      constraints,
      fc.boolean(),
      fc
        .array(effects, { maxLength: 4 })
        .chain((list) => fc.tuple(fc.constant(list), fc.array(runArb(list), { minLength: 1, maxLength: 4 }))),
      (c, withManifests, [list, runs]) => {
        const opts = withManifests ? manifests : {};
        const verdict = holdsEffect(c, list, opts).verdict;
        seen[verdict]++;
        for (const run of runs) {
          const passed = run.every((call, i) => satisfiesCall(c, call, run.slice(0, i), opts));
          if (verdict === "yes") expect(passed, JSON.stringify(run)).toBe(true);
          if (verdict === "no") expect(passed, JSON.stringify(run)).toBe(false);
        }
      },
    ),
    { numRuns: 3000 },
  );
  // The property only bites if the static check often commits to an answer.
  expect(seen.yes).toBeGreaterThan(decided);
  expect(seen.no).toBeGreaterThan(decided);
}

describe("holdsEffect is sound against satisfiesCall", () => {
  it("yes: every call of every run passes; no: every run has a refused call", () => {
    assertSound(effectConstraintArb, effectArb, 300);
  });

  it("distinct recipients", () => {
    // distinct commits less often (about 300-400 of 3000 runs either way): a margin keeps it from flaking.
    assertSound(
      fc.constantFrom("email.send_*", "email.*", "*").map((op) => ({ op, distinct: "to" })),
      emailEffectArb,
      200,
    );
  });

  it("recipient lists and call counts", () => {
    const to = fc.oneof(
      fc.array(small, { maxLength: 3 }).map((values) => ({ in: values })),
      small.map((x) => ({ not: { eq: x } })),
      fc.nat(2).map((max_length) => ({ max_length })),
    );
    const args = fc.record({ op: fc.constantFrom("email.send_*", "email.*"), args: to.map((c) => ({ to: c })) });
    const count = fc.record({
      op: fc.constantFrom("email.send_*", "email.*"),
      count: fc.nat(4).map((max) => ({ max })),
    });
    assertSound(fc.oneof(args, count), emailEffectArb, 300);
  });
});
