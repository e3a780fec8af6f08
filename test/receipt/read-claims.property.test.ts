// readClaims, the hand-written claims check on verifyReceipt's path, against the ReceiptClaims
// schema it stands in for: on random claims and on random mutations of them (a member replaced by
// a value of another shape or an edge value, removed, or added), it refuses exactly what the
// schema refuses, returns what the schema returns, and returns it frozen all the way down.
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Json } from "../../src/model/json.js";
import { ReceiptClaims } from "../../src/model/receipt.js";
import { isBuiltFrozen, readClaims } from "../../src/receipt/read-claims.js";
import { constraintArb, jsonArb } from "../constraint/arbitraries.js";

const OPS = ["email.send_email", "email.get_draft", "fs.write_file", "http.get"];
const hex = (c: string) => c.repeat(64);
const seconds = fc.integer({ min: 0, max: 2_000_000_000 });

const grantArb = (op: string) =>
  fc.record(
    {
      op: fc.constant(op),
      connector: fc.record({ name: fc.constantFrom("email", "fs"), sha256: fc.constantFrom(hex("a"), hex("b")) }),
      args: fc.dictionary(fc.constantFrom("to", "path", "url", "constructor"), constraintArb, { maxKeys: 3 }),
      count: fc.record({ max: fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 5 })) }),
      distinct: fc.constantFrom("to", "path"),
    },
    { requiredKeys: ["op", "connector", "args", "count"] },
  );

const claimsArb = fc
  .tuple(fc.subarray(OPS), seconds, fc.integer({ min: 0, max: 10 }), fc.integer({ min: 1, max: 900 }), fc.constantFrom("auto_approved", "approved_once", "approved_remember"), fc.boolean())
  .chain(([ops, iat, wait, life, decision, agent]) =>
    fc.record({
      iss: fc.constant("countersign-local"),
      aud: fc.constant("countersign-runner"),
      sub: fc.constant("req-1"),
      iat: fc.constant(iat),
      nbf: fc.constant(iat + wait),
      exp: fc.constant(iat + wait + life),
      jti: fc.constant("A".repeat(22)),
      program: fc.constant({ sha256: hex("c"), entry: "program.ts" }),
      decision: fc.constant(decision),
      policy: fc.constant({ sha256: hex("d") }),
      grants: ops.length === 0 ? fc.constant([]) : fc.tuple(...ops.map(grantArb)),
      across: ops.length === 0 ? fc.constant([]) : fc.array(fc.record({ ops: fc.subarray(ops, { minLength: 1 }), count: fc.record({ max: fc.integer({ min: 0, max: 3 }) }), distinct: fc.constant("to") }, { requiredKeys: ["ops"] }), { maxLength: 2 }),
      ...(decision === "auto_approved" ? {} : { approver: fc.constant("alice") }),
      ...(agent ? { agent_manifests: fc.constant({ sha256: hex("e") }) } : {}),
    }),
  );

/** Values that sit on an edge of some member's schema. */
const EDGES: unknown[] = [
  null, true, "", "x", "/abs", "rel", "*", "email.*", "Email.send", "email.send_email", "api.x.com", "http://api.x.com", "api.x.com:99999",
  0, -0, -1, 1.5, 2 ** 53, Number.MAX_SAFE_INTEGER, Infinity, -Infinity, NaN, hex("a"), hex("A"), "A".repeat(22), "A".repeat(21),
  [], [""], ["email.send_email"], ["string"], ["strin"], {}, { max: 1 }, { max: null }, { sha256: hex("a") }, { eq: 1 }, { eq: NaN }, { in: [Infinity] },
  { all: [] }, { any: [] }, { type: [] }, { from: [] }, { from: ["email.*"] }, { untrusted: 1 }, { under: "a" }, { glob: "" }, { host_in: [] },
  { host_in: ["x.com/path"] }, { max_length: -1 }, { fields: [] }, { elements: {} }, { not: { eq: 1 }, eq: 1 }, { nope: 1 },
];

type Path = (string | number)[];

/** Every path to a member in `value`, the root excluded. */
function paths(value: unknown, at: Path = []): Path[] {
  if (typeof value !== "object" || value === null) return [];
  const keys: (string | number)[] = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return keys.flatMap((k) => [[...at, k], ...paths((value as Record<string | number, unknown>)[k], [...at, k])]);
}

type Mutation = { kind: "replace"; with: unknown } | { kind: "remove" } | { kind: "add"; key: string; with: unknown };

function mutate(value: unknown, path: Path, m: Mutation): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  const parent = path.slice(0, -1).reduce<Record<string | number, unknown>>((o, k) => o[k] as Record<string | number, unknown>, copy);
  const last = path[path.length - 1]!;
  if (m.kind === "replace") parent[last] = structuredClone(m.with);
  else if (m.kind === "remove") {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else {
    const target = parent[last];
    if (typeof target === "object" && target !== null && !Array.isArray(target)) (target as Record<string, unknown>)[m.key] = structuredClone(m.with);
    else parent[last] = structuredClone(m.with);
  }
  return copy;
}

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 3, arbitrary: fc.oneof(fc.constantFrom(...EDGES), jsonArb as fc.Arbitrary<unknown>, constraintArb as fc.Arbitrary<unknown>).map((w) => ({ kind: "replace" as const, with: w })) },
  { weight: 2, arbitrary: fc.constant({ kind: "remove" as const }) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom("extra", "approver", "distinct", "count", "eq", "max"), fc.constantFrom(...EDGES)).map(([key, w]) => ({ kind: "add" as const, key, with: w })) },
);

const mutatedArb = claimsArb.chain((claims) => {
  const all = paths(claims);
  return fc.array(fc.tuple(fc.constantFrom(...all), mutationArb), { minLength: 1, maxLength: 3 }).map((ms) => ms.reduce<unknown>((v, [p, m]) => {
    try {
      return mutate(v, p, m);
    } catch {
      return v; // the path went away with an earlier mutation
    }
  }, claims));
});

function frozenThroughout(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(frozenThroughout);
}

function agrees(claims: unknown): boolean {
  const schema = ReceiptClaims.safeParse(structuredClone(claims));
  const ours = readClaims(structuredClone(claims));
  expect(ours !== undefined, JSON.stringify(schema.success ? "schema accepts" : schema.error.issues)).toBe(schema.success);
  if (schema.success) {
    // Node's strict deep equality (prototypes, -0, holes): vitest's toEqual once reported a
    // difference between two values that this and a JSON round trip both found equal.
    expect(isDeepStrictEqual(ours, schema.data)).toBe(true);
    expect(frozenThroughout(ours)).toBe(true);
    expect(isBuiltFrozen(ours!)).toBe(true);
  }
  return schema.success;
}

describe("readClaims accepts exactly what the ReceiptClaims schema accepts", () => {
  it("random claims the issuer could sign", () => {
    let accepted = 0;
    fc.assert(fc.property(claimsArb, (claims) => void (agrees(claims) && accepted++)), { numRuns: 400 });
    expect(accepted).toBeGreaterThan(300); // the generator makes valid claims, mostly
  });

  it("random mutations of them", () => {
    let refused = 0;
    fc.assert(fc.property(mutatedArb, (claims) => void (agrees(claims) || refused++)), { numRuns: 2000 });
    expect(refused).toBeGreaterThan(700); // most mutations break something
  });

  it("edge cases one by one: each refused as the schema refuses it", () => {
    const base = fc.sample(claimsArb.filter((c) => c.grants.length >= 2 && c.across.length >= 1), { numRuns: 1, seed: 7 })[0]!;
    const cases: unknown[] = [
      null, [], "claims", { ...base, iat: base.exp }, { ...base, nbf: base.exp }, { ...base, extra: 1 }, { ...base, jti: "A".repeat(23) },
      { ...base, grants: [base.grants[0], base.grants[0]] }, { ...base, across: [{ ops: ["other.op"], count: { max: 1 } }] },
      { ...base, across: [{ ops: [base.grants[0]!.op] }] }, { ...base, across: [{ ops: [base.grants[0]!.op, base.grants[0]!.op], distinct: "to" }] },
      { ...base, decision: "auto_approved", approver: "alice" }, { ...base, decision: "approved_once", approver: undefined },
      { ...base, exp: 2 ** 53 }, { ...base, iat: 1.5 }, { ...base, program: { ...base.program, extra: 1 } },
      { ...base, grants: [{ ...base.grants[0]!, args: { to: { eq: Infinity } } }] }, { ...base, grants: [{ ...base.grants[0]!, args: { to: { in: [1e400] } } }] },
    ];
    for (const c of cases) agrees(c as Json);
  });

  it("every edge value at every member of a claims value, and in every constraint position", () => {
    const base = fc.sample(claimsArb.filter((c) => c.grants.length >= 2 && c.across.length >= 1 && c.approver !== undefined), { numRuns: 1, seed: 11 })[0]!;
    let refused = 0;
    for (const path of paths(base)) for (const edge of EDGES) refused += agrees(mutate(base, path, { kind: "replace", with: edge })) ? 0 : 1;
    const g = base.grants[0]!;
    for (const edge of EDGES) {
      for (const wrap of [(c: unknown) => c, (c: unknown) => ({ not: c }), (c: unknown) => ({ all: [c] }), (c: unknown) => ({ any: [c] }), (c: unknown) => ({ elements: c }), (c: unknown) => ({ fields: { a: c } }), (c: unknown) => ({ eq: [c] }), (c: unknown) => ({ in: [{ a: c }] })]) {
        agrees({ ...base, grants: [{ ...g, args: { to: wrap(edge) } }] });
      }
    }
    expect(refused).toBeGreaterThan(paths(base).length); // each member has some edge value it refuses
  });
});
