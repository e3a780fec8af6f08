import fc from "fast-check";
import type { AbstractValue } from "../../src/model/abstract.js";
import type { EffectConstraint, ValueConstraint } from "../../src/model/constraint.js";
import type { Effect, GuaranteeStatus } from "../../src/model/facts.js";
import type { LoadedRule, Policy, PolicyRule } from "../../src/policy/schema.js";

// Random policies, effects and guarantees over a few ops of the shipped manifests, with values
// from small pools so that rules and values meet often.

const ADDRESSES = ["me@example.com", "bob@example.com", "eve@evil.com", "EVE@Evil.com", "x@y"];
const PATHS = ["/s/a.txt", "/s/sub/b", "/t/c", "/s/../t/d", "/s", "relative"];
const URLS = ["https://api.example.com/v1", "https://evil.com/x", "http://api.example.com:8080/", "not a url"];
const STRINGS = ["", "hello", "secret stuff", "x".repeat(12)];
export const MIDDLES = ["", "a", "../t/x", "z@evil.com", "/../../etc"];

const OPS = {
  "email.send_email": { to: ADDRESSES, subject: STRINGS, body: STRINGS },
  "fs.write_file": { path: PATHS, content: STRINGS },
  "fs.read_file": { path: PATHS },
  "http.get": { url: URLS },
} as const;
export type Op = keyof typeof OPS;
const opNames = Object.keys(OPS) as Op[];
export const isList = (op: string, input: string) => op === "email.send_email" && input === "to";
export const pool = (op: Op, input: string): readonly string[] =>
  (OPS[op] as Record<string, readonly string[]>)[input]!;
const inputsOf = (op: Op) => Object.keys(OPS[op]);

function leaf(op: Op, input: string): fc.Arbitrary<ValueConstraint> {
  const values = fc.subarray([...pool(op, input)], { minLength: 1 });
  const options: fc.Arbitrary<ValueConstraint>[] = [
    values.map((v) => ({ in: v })),
    values.map((v) => ({ not_in: v })),
    fc.constantFrom(...pool(op, input)).map((v) => ({ eq: v })),
    fc.nat(13).map((n) => ({ max_length: n })),
  ];
  if (input === "to") options.push(fc.constantFrom("*@example.com", "*@evil.com", "me@*").map((glob) => ({ glob })));
  if (input === "path")
    options.push(
      fc.constantFrom("/s", "/t", "/s/sub").map((under) => ({ under })),
      fc.constantFrom("/s/*", "*.txt").map((glob) => ({ glob })),
    );
  if (input === "url")
    options.push(
      fc.constantFrom("api.example.com", "evil.com", "api.example.com:8080").map((host) => ({ host_in: [host] })),
    );
  if (input === "body" || input === "content")
    options.push(fc.constantFrom("*secret*", "h*").map((glob) => ({ glob })));
  return fc.oneof(...options);
}

function constraint(op: Op, input: string): fc.Arbitrary<ValueConstraint> {
  const base = leaf(op, input);
  return fc.oneof(
    { weight: 4, arbitrary: base },
    { weight: 1, arbitrary: base.map((c) => ({ not: c })) },
    { weight: 1, arbitrary: fc.tuple(base, base).map(([a, b]) => ({ any: [a, b] })) },
    { weight: 1, arbitrary: fc.tuple(base, base).map(([a, b]) => ({ all: [a, b] })) },
  );
}

function argsFor(op: Op): fc.Arbitrary<Record<string, ValueConstraint>> {
  return fc
    .subarray(inputsOf(op), { maxLength: Math.min(2, inputsOf(op).length) })
    .chain((names) =>
      fc
        .tuple(...names.map((n) => constraint(op, n)))
        .map((cs) => Object.fromEntries(names.map((n, i) => [n, cs[i]!]))),
    );
}

const opPattern = (op: Op) => fc.constantFrom(op, `${op.split(".")[0]}.*`, "*");

const rule: fc.Arbitrary<PolicyRule> = fc.constantFrom(...opNames).chain((op) =>
  fc
    .record({
      decision: fc.constantFrom("deny", "ask", "allow", "allow", "allow") as fc.Arbitrary<PolicyRule["decision"]>,
      op: opPattern(op),
      args: argsFor(op),
      count: fc.option(fc.nat(4), { nil: undefined }),
      distinct: fc.option(fc.constantFrom(...inputsOf(op)), { nil: undefined }),
    })
    .map(({ decision, op: pattern, args, count, distinct }) => {
      const when: NonNullable<PolicyRule["when"]> = Object.keys(args).length > 0 ? { args } : {};
      if (decision !== "deny" && count !== undefined) when.count = { max: count };
      if (decision !== "deny" && distinct !== undefined && pattern === op) when.distinct = distinct;
      return {
        id: "",
        decision,
        op: pattern,
        ...(Object.keys(when).length > 0 ? { when } : {}),
        ...(decision === "deny" ? { reason: "r" } : {}),
      };
    }),
);

// Broad exact allow rules make approvals common enough for the property to bite.
const broad = fc.subarray(opNames).map((ops) => ops.map((op): PolicyRule => ({ id: "", decision: "allow", op })));

export const policy: fc.Arbitrary<Policy> = fc
  .record({
    rules: fc.tuple(fc.array(rule, { maxLength: 6 }), broad).map(([some, wide]) => [...some, ...wide]),
    default: fc.constantFrom("ask", "ask", "ask", "deny") as fc.Arbitrary<"ask" | "deny">,
  })
  .map(({ rules, default: fallback }) => ({
    dir: "/p",
    files: ["/p/p.toml"],
    default: fallback,
    givenHours: 24,
    ownAddresses: [],
    rules: rules.map((r, i): LoadedRule => ({ ...r, id: `r${i}`, file: "/p/p.toml" })),
    handles: [],
    sha256: "0".repeat(64),
  }));

function scalar(op: Op, input: string): fc.Arbitrary<AbstractValue> {
  return fc.oneof(
    {
      weight: 3,
      arbitrary: fc
        .subarray([...pool(op, input)], { minLength: 1 })
        .map((values) => ({ kind: "const" as const, values })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom("", "/s/", "/t/", "https://api.example.com/", "https://evil.com/", "me@"),
          fc.constantFrom("", ".txt", "@example.com"),
        )
        .map(([prefix, suffix]) => ({ kind: "string" as const, prefix, suffix, provenance: [] })),
    },
    {
      weight: 1,
      arbitrary: fc.constant(null).map(
        (): AbstractValue => ({
          kind: "unknown",
          provenance: [{ source: "result of email.get_draft", untrusted: true }],
        }),
      ),
    },
  );
}

function abstractArg(op: Op, input: string): fc.Arbitrary<AbstractValue> {
  if (!isList(op, input)) return scalar(op, input);
  return fc.tuple(scalar(op, input), fc.nat(2), fc.option(fc.nat(2), { nil: null })).map(([element, min, extra]) => ({
    kind: "array",
    element,
    length: { min, max: extra === null ? null : min + extra },
  }));
}

let line = 0;
export const effect: fc.Arbitrary<Effect> = fc.constantFrom(...opNames).chain((op) =>
  fc
    .record({
      args: fc
        .tuple(...inputsOf(op).map((n) => abstractArg(op, n)))
        .map((vs) => Object.fromEntries(inputsOf(op).map((n, i) => [n, vs[i]!]))),
      min: fc.nat(2),
      extra: fc.option(fc.nat(2), { nil: null }),
    })
    .map(({ args, min, extra }) => ({
      op,
      connector: op.split(".")[0]!,
      action: op.split(".")[1]!,
      site: { line: ++line, column: 1 },
      args,
      count: { min, max: extra === null ? null : min + extra },
    })),
);

export const guarantee: fc.Arbitrary<[EffectConstraint, GuaranteeStatus]> = fc.tuple(
  fc.constantFrom(...opNames).chain((op) =>
    fc
      .record({ op: opPattern(op), args: argsFor(op), count: fc.option(fc.nat(3), { nil: undefined }) })
      .map(({ op, args, count }) => ({
        op,
        ...(Object.keys(args).length > 0 ? { args } : {}),
        ...(count === undefined ? {} : { count: { max: count } }),
      })),
  ),
  fc.constantFrom("proven", "enforced") as fc.Arbitrary<GuaranteeStatus>,
);
