// checkCall against the constraint language's own run-time check: for random grants and random
// call sequences it admits exactly the calls that satisfiesCall admits (every argument satisfies
// its constraint, count and distinct over the calls admitted before, the same for each limit across
// grants over the calls of its ops), with the right connector.
import fc from "fast-check";
import { beforeAll, expect, it } from "vitest";
import { satisfiesCall, type Call } from "../../src/constraint/index.js";
import type { ValueConstraint } from "../../src/model/constraint.js";
import type { Grant } from "../../src/model/decision.js";
import type { Json } from "../../src/model/json.js";
import type { ReceiptCrossOpLimit } from "../../src/model/receipt.js";
import { CountersignError } from "../../src/model/errors.js";
import { checkCall, type CallAttempt } from "../../src/receipt/check-call.js";
import { jwks } from "../../src/receipt/jwks.js";
import type { Keyring } from "../../src/receipt/keyring.js";
import { verifyReceipt } from "../../src/receipt/verify.js";
import { issue, ISSUER, keyringIn, NOW, PROGRAM } from "./fixtures.js";

const OPS = ["mail.send", "mail.read", "files.write"];
const INPUTS = ["to", "path", "n"];
const HASH = "d".repeat(64);
const WORDS = ["a", "b", "ab", "a@x.com", "b@y.com", "/r/a", "/r/../s"];

const scalar = fc.oneof(fc.constantFrom<Json>(...WORDS), fc.constantFrom<Json>(null, 1, true));
const value: fc.Arbitrary<Json> = fc.oneof(
  { weight: 3, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 3 }) },
);
const constraint: fc.Arbitrary<ValueConstraint> = fc.letrec<{ c: ValueConstraint }>((tie) => ({
  c: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.record({ in: fc.array(scalar, { maxLength: 3 }) }),
    fc.record({ eq: scalar }),
    fc.record({ not_in: fc.array(scalar, { maxLength: 2 }) }),
    fc.record({ glob: fc.constantFrom("a*", "*@x.com", "?", "*") }),
    fc.record({ under: fc.constantFrom("/r", "/s") }),
    fc.record({ max_length: fc.integer({ min: 0, max: 3 }) }),
    fc.record({ prefix: fc.constantFrom("a", "/r/", "b@") }),
    fc.record({ type: fc.subarray(["string", "array", "null", "number"] as const, { minLength: 1 }) }),
    fc.record({ elements: tie("c") }),
    fc.record({ not: tie("c") }),
    fc.record({ any: fc.array(tie("c"), { minLength: 1, maxLength: 2 }) }),
  ),
})).c;

const grantFor = (op: string): fc.Arbitrary<Grant> =>
  fc.record(
    {
      op: fc.constant(op),
      connector: fc.constant({ name: op.split(".")[0]!, sha256: HASH }),
      args: fc.dictionary(fc.constantFrom(...INPUTS), constraint, { maxKeys: 2 }),
      count: fc.record({ max: fc.option(fc.integer({ min: 0, max: 3 }), { nil: null }) }),
      distinct: fc.constantFrom(...INPUTS),
    },
    { requiredKeys: ["op", "connector", "args", "count"] },
  );
const grants = fc.subarray(OPS, { minLength: 1 }).chain((ops) => fc.tuple(...ops.map(grantFor)));
// Limits across some of the granted ops, each with a count, a distinct input, or both.
const acrossFor = (ops: string[]): fc.Arbitrary<ReceiptCrossOpLimit[]> =>
  fc.array(
    fc
      .record({
        ops: fc.subarray(ops, { minLength: 1 }),
        count: fc.option(
          fc.integer({ min: 1, max: 4 }).map((max) => ({ max })),
          { nil: undefined },
        ),
        distinct: fc.option(fc.constantFrom(...INPUTS), { nil: undefined }),
      })
      .filter((l) => l.count !== undefined || l.distinct !== undefined)
      .map((l) => Object.fromEntries(Object.entries(l).filter(([, v]) => v !== undefined)) as ReceiptCrossOpLimit),
    { maxLength: 1 },
  );
const setup = grants.chain((gs) => fc.tuple(fc.constant(gs), acrossFor(gs.map((g) => g.op))));
const call: fc.Arbitrary<CallAttempt> = fc
  .record({
    op: fc.constantFrom(...OPS, "other.op"),
    args: fc.dictionary(fc.constantFrom(...INPUTS), value, { maxKeys: 3 }),
    wrongHash: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
  })
  .map(({ op, args, wrongHash }) => ({
    op,
    args,
    connector: { name: op.split(".")[0]!, sha256: wrongHash ? "e".repeat(64) : HASH },
  }));

let keys: Keyring;
beforeAll(async () => {
  keys = await keyringIn();
});

it("admits exactly the calls the constraint language admits", async () => {
  const tally = { admitted: 0, refused: 0 };
  await fc.assert(
    fc.asyncProperty(setup, fc.array(call, { maxLength: 8 }), async ([gs, across], calls) => {
      const token = await issue(keys, { grants: gs, across });
      const verified = await verifyReceipt(token, {
        jwks: jwks(keys, NOW),
        issuer: ISSUER,
        programBytes: PROGRAM,
        now: NOW,
      });
      const admitted: Call[] = [];
      for (const c of calls) {
        const grant = gs.find((g) => g.op === c.op);
        const expected =
          grant !== undefined &&
          c.connector.sha256 === grant.connector.sha256 &&
          satisfiesCall(
            {
              op: grant.op,
              args: grant.args,
              ...(grant.count.max === null ? {} : { count: { max: grant.count.max } }),
              ...(grant.distinct === undefined ? {} : { distinct: grant.distinct }),
            },
            c,
            admitted,
          ) &&
          // A limit across ops is the same check over the calls of its ops, with one history.
          across.every(
            (l) =>
              !l.ops.includes(c.op) ||
              satisfiesCall(
                {
                  op: "*",
                  ...(l.count === undefined ? {} : { count: l.count }),
                  ...(l.distinct === undefined ? {} : { distinct: l.distinct }),
                },
                c,
                admitted.filter((h) => l.ops.includes(h.op)),
              ),
          );
        let actual = true;
        try {
          checkCall(verified, c, NOW);
        } catch (err) {
          expect(err).toBeInstanceOf(CountersignError);
          expect((err as CountersignError).class).toBe("grant_violation");
          actual = false;
        }
        expect(actual, JSON.stringify({ call: c, grant })).toBe(expected);
        if (expected) admitted.push({ op: c.op, args: c.args });
        tally[expected ? "admitted" : "refused"]++;
      }
      expect(verified.calls).toEqual(admitted);
    }),
    { numRuns: 300 },
  );
  // both sides are exercised, not just one
  expect(tally.admitted).toBeGreaterThan(50);
  expect(tally.refused).toBeGreaterThan(50);
});
