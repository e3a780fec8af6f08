// Generators for the soundness properties: random constraints and abstract values over small
// alphabets (so that hits are frequent), and for each abstract value a generator of its members.
import fc from "fast-check";
import type { AbstractValue } from "../../src/model/abstract.js";
import type { JsonType, ValueConstraint } from "../../src/model/constraint.js";
import type { Json } from "../../src/model/json.js";

// Pieces that matter to paths, globs, emails and URLs.
const ATOMS = [
  "a",
  "b",
  "A",
  "x",
  "/",
  "//",
  ".",
  "..",
  "/../",
  "@",
  ":",
  "?",
  "#",
  "\\",
  "\t",
  "\0",
  " ",
  "x.com",
  "X.com",
  "api.x.com",
  "evil.com",
  ".evil.com",
  "@evil.com",
  ":8443",
  ":443",
  "https://",
  "http://",
  "ftp://",
  "https:",
  "/a",
  "/a/b",
  "/ab",
  "/home/u/Sandbox",
  "m",
  "z",
  "X.COM.",
  "@x.com.",
];
export const atomString = fc.array(fc.constantFrom(...ATOMS), { maxLength: 4 }).map((parts) => parts.join(""));

const PREFIXES = [
  "",
  "/",
  "/a/",
  "/a",
  "/ab",
  "/etc/",
  "/home/u/Sandbox/",
  "a",
  "ab",
  "https://api.x.com/",
  "https://api.x.com",
  "http://api.x.com:8443/",
  "https://evil.com/",
  "https://api.x.com@evil.com/",
  "HTTPS://API.X.COM?",
  "ftp://",
  "api.x.com/",
  "ht",
  "b@",
];
const SUFFIXES = ["", "/", "@x.com", "@X.com", "@evil.com", ".com", "bc", "b", "z", "/..", "\0", ".", "@x.com.", "m."];
export const prefixArb = fc.oneof(fc.constantFrom(...PREFIXES), atomString);
export const suffixArb = fc.oneof(fc.constantFrom(...SUFFIXES), atomString);

const SCALARS: Json[] = [
  "a",
  "b",
  "ab",
  "bc",
  "abc",
  "/a",
  "/a/b",
  "/ab",
  "/a/../ab",
  "a@x.com",
  "b@X.com",
  "e@evil.com",
  "A@X.COM.",
  "a@x.com..",
  "https://api.x.com/v1",
  "https://evil.com/",
  "http://api.x.com:8443/",
  "https://api.x.com@evil.com/",
  "",
  0,
  1,
  true,
  null,
];
export const scalarArb = fc.oneof(fc.constantFrom(...SCALARS), atomString);
export const jsonArb: fc.Arbitrary<Json> = fc.oneof(
  { weight: 4, arbitrary: scalarArb },
  { weight: 1, arbitrary: fc.array(scalarArb, { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.record({ a: scalarArb }) },
  { weight: 1, arbitrary: fc.record({ a: scalarArb, b: fc.array(scalarArb, { maxLength: 2 }) }, { requiredKeys: [] }) },
);

const JSON_TYPES: JsonType[] = ["string", "number", "boolean", "null", "array", "object"];

const leafArb: fc.Arbitrary<ValueConstraint> = fc.oneof(
  jsonArb.map((eq) => ({ eq })),
  fc.array(jsonArb, { maxLength: 4 }).map((values) => ({ in: values })),
  fc.array(jsonArb, { maxLength: 4 }).map((values) => ({ not_in: values })),
  fc.constantFrom("/", "/a", "/a/b", "/ab", "/a/", "/home/u/Sandbox", "/etc").map((under) => ({ under })),
  fc
    .oneof(
      fc.constantFrom(
        "*",
        "a*",
        "*@x.com",
        "*@X.COM",
        "*@x.com.",
        "a@*",
        "/a/*",
        "a?b",
        "*a*",
        "?",
        "ab*bc",
        "a*m*z",
        "https://api.x.com/*",
        "*.com",
        "abc",
      ),
      atomString.filter((s) => s !== ""),
    )
    .map((glob) => ({ glob })),
  fc
    .constantFrom(["api.x.com"], ["api.x.com:8443"], ["evil.com", "api.x.com"], ["API.X.COM:443"], ["x.com"])
    .map((hosts) => ({ host_in: [...hosts] })),
  fc.integer({ min: 0, max: 8 }).map((max_length) => ({ max_length })),
  fc.integer({ min: 0, max: 4 }).map((min_length) => ({ min_length })),
  fc
    .oneof(prefixArb, atomString)
    .filter((s) => s !== "")
    .map((prefix) => ({ prefix })),
  fc
    .oneof(suffixArb, atomString)
    .filter((s) => s !== "")
    .map((suffix) => ({ suffix })),
  fc.subarray(JSON_TYPES, { minLength: 1, maxLength: 3 }).map((type) => ({ type })),
);

export const constraintArb: fc.Arbitrary<ValueConstraint> = fc.letrec<{ c: ValueConstraint }>((tie) => ({
  c: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    { weight: 6, arbitrary: leafArb },
    { weight: 1, arbitrary: fc.array(tie("c"), { maxLength: 3 }).map((all) => ({ all })) },
    { weight: 1, arbitrary: tie("c").map((elements) => ({ elements })) },
    {
      weight: 1,
      arbitrary: fc.dictionary(fc.constantFrom("a", "b"), tie("c"), { maxKeys: 2 }).map((fields) => ({ fields })),
    },
    { weight: 1, arbitrary: fc.array(tie("c"), { minLength: 1, maxLength: 3 }).map((any) => ({ any })) },
    { weight: 1, arbitrary: tie("c").map((not) => ({ not })) },
  ),
})).c;

const lengthArb = fc
  .integer({ min: 0, max: 2 })
  .chain((min) => fc.oneof(fc.integer({ min, max: min + 3 }), fc.constant(null)).map((max) => ({ min, max })));

export const abstractArb: fc.Arbitrary<AbstractValue> = fc.letrec<{ v: AbstractValue }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    {
      weight: 3,
      arbitrary: fc
        .array(jsonArb, { minLength: 1, maxLength: 3 })
        .map((values) => ({ kind: "const" as const, values })),
    },
    {
      weight: 4,
      arbitrary: fc
        .record({ prefix: prefixArb, suffix: suffixArb })
        .map(({ prefix, suffix }) => ({ kind: "string" as const, prefix, suffix, provenance: [] })),
    },
    {
      weight: 2,
      arbitrary: fc
        .record({ element: tie("v"), length: lengthArb })
        .map(({ element, length }) => ({ kind: "array" as const, element, length })),
    },
    {
      weight: 1,
      arbitrary: fc
        .dictionary(fc.constantFrom("a", "b"), tie("v"), { maxKeys: 2 })
        .map((fields) => ({ kind: "record" as const, fields })),
    },
    { weight: 1, arbitrary: fc.constant<AbstractValue>({ kind: "unknown", provenance: [] }) },
  ),
})).v;

/** Members of the concretization, including strings where the prefix and suffix overlap. */
export function memberArb(v: AbstractValue): fc.Arbitrary<Json> {
  switch (v.kind) {
    case "const":
      return fc.constantFrom(...v.values);
    case "string": {
      const overlaps: string[] = [];
      for (let o = Math.min(v.prefix.length, v.suffix.length); o >= 1; o--) {
        if (v.prefix.endsWith(v.suffix.slice(0, o))) overlaps.push(v.prefix + v.suffix.slice(o));
      }
      if (v.suffix.startsWith(v.prefix)) overlaps.push(v.suffix);
      if (v.prefix.endsWith(v.suffix)) overlaps.push(v.prefix);
      const joined = atomString.map((middle) => v.prefix + middle + v.suffix);
      return overlaps.length === 0 ? joined : fc.oneof(joined, fc.constantFrom(...overlaps));
    }
    case "array":
      return fc.array(memberArb(v.element), { minLength: v.length.min, maxLength: v.length.max ?? v.length.min + 4 });
    case "record": {
      // A listed field whose value is null may also be left out (read as null, src/model/abstract.ts).
      const fields = Object.fromEntries(Object.entries(v.fields).map(([k, f]) => [k, memberArb(f)]));
      return (fc.record(fields) as fc.Arbitrary<Record<string, Json>>).chain((full) =>
        fc
          .subarray(Object.keys(full).filter((k) => full[k] === null))
          .map((absent) => Object.fromEntries(Object.entries(full).filter(([k]) => !absent.includes(k))) as Json),
      );
    }
    case "unknown":
      return jsonArb;
  }
}

/** Whether a concrete value lies in an abstract value's concretization. */
export function isMember(x: Json, v: AbstractValue): boolean {
  switch (v.kind) {
    case "const":
      return v.values.some((m) => JSON.stringify(canon(m)) === JSON.stringify(canon(x)));
    case "string":
      return typeof x === "string" && x.startsWith(v.prefix) && x.endsWith(v.suffix);
    case "array":
      return (
        Array.isArray(x) &&
        x.length >= v.length.min &&
        (v.length.max === null || x.length <= v.length.max) &&
        x.every((e) => isMember(e, v.element))
      );
    case "record":
      return (
        x !== null &&
        typeof x === "object" &&
        !Array.isArray(x) &&
        Object.keys(x).every((k) => Object.hasOwn(v.fields, k)) &&
        Object.entries(v.fields).every(([k, f]) => isMember(Object.hasOwn(x, k) ? x[k]! : null, f))
      );
    case "unknown":
      return true;
  }
}

function canon(x: Json): Json {
  if (Array.isArray(x)) return x.map(canon);
  if (x !== null && typeof x === "object")
    return Object.fromEntries(
      Object.keys(x)
        .sort()
        .map((k) => [k, canon(x[k]!)]),
    );
  return x;
}

/** An abstract value with a sample of its members. */
export const valueWithMembers = abstractArb.chain((v) =>
  fc.tuple(fc.constant(v), fc.array(memberArb(v), { minLength: 1, maxLength: 12 })),
);

// URL-shaped partly known strings: scheme, authority pieces, maybe a terminator; tricky middles.
const URL_PARTS = [
  "https://",
  "http://",
  "HTTP://",
  "https:",
  "https:///",
  "ftp://",
  "api.x.com",
  "API.X.com",
  "evil.com",
  "x.com",
  "@",
  ":8443",
  ":443",
  ":99999",
  ".",
  "/",
  "?",
  "#",
  "\\",
  "\t",
  "[::1]",
  "user:pw@",
  "%2F",
  // What a parser or a server reads differently from the text: dot segments and their encodings,
  // line breaks and spaces, other spellings of hosts.
  "..",
  "/..",
  "%2e",
  "%2E%2e",
  "..%2f",
  "%5c",
  "\n",
  " ",
  "0x7f.1",
  "127.1",
  "ÄPI.x.com",
  "xn--pi-uia.x.com",
  "api%2ex.com",
];
const urlPiece = fc.array(fc.constantFrom(...URL_PARTS), { maxLength: 5 }).map((parts) => parts.join(""));
const authorityArb = fc
  .tuple(
    fc.constantFrom("", "", "user:pw@", "api.x.com@", "evil.com@"),
    fc.constantFrom(
      "api.x.com",
      "API.X.com",
      "evil.com",
      "x.com",
      "[::1]",
      "api.x.com.",
      "0x7f.1",
      "ÄPI.x.com",
      "api%2ex.com",
    ),
    fc.constantFrom("", "", ":8443", ":443", ":80", ":99999"),
  )
  .map((parts) => parts.join(""));
const closedUrlArb = fc
  .tuple(
    fc.constantFrom("https://", "http://", "HTTPS://"),
    authorityArb,
    fc.constantFrom("/", "?", "#", "\\", "", "\t/", "/public/", "/public/..", "/public/%2e"),
    urlPiece,
  )
  .map((parts) => parts.join(""));
export const urlShapeArb = fc
  .record({
    prefix: fc.oneof(
      closedUrlArb,
      fc
        .tuple(
          fc.constantFrom("https://", "http://", "HTTPS://", "", "ht", "ht\ttps://", "https\n://", " https://"),
          urlPiece,
        )
        .map((p) => p.join("")),
    ),
    suffix: fc.constantFrom("", "/v1", "@evil.com"),
  })
  .map(({ prefix, suffix }): AbstractValue => ({ kind: "string", prefix, suffix, provenance: [] }));
export const urlMemberArb = (v: AbstractValue) =>
  v.kind === "string" ? urlPiece.map((middle) => v.prefix + middle + v.suffix) : memberArb(v);
export const hostConstraintArb = fc
  .subarray(["api.x.com", "api.x.com:8443", "API.X.COM:443", "evil.com", "x.com", "[::1]", "evil.com:80"], {
    minLength: 1,
  })
  .map((host_in): ValueConstraint => ({ host_in }));

// Tiny alphabets make globs and partly known strings collide often, overlaps included.
const abc = (max: number) => fc.array(fc.constantFrom("a", "b", "c"), { maxLength: max }).map((cs) => cs.join(""));
export const globArb = fc
  .array(fc.constantFrom("a", "b", "c", "*", "?"), { minLength: 1, maxLength: 6 })
  .map((cs): ValueConstraint => ({ glob: cs.join("") }));
export const smallShapeArb = fc
  .record({ prefix: abc(3), suffix: abc(3) })
  .map(({ prefix, suffix }): AbstractValue => ({ kind: "string", prefix, suffix, provenance: [] }));
export const smallMemberArb = (v: AbstractValue) =>
  fc.oneof(
    memberArb(v),
    abc(4).map((middle) => (v.kind === "string" ? v.prefix + middle + v.suffix : "")),
  );

// Address-shaped strings: case and a trailing dot must not change what an email constraint says.
const addressPiece = fc
  .array(fc.constantFrom("", ".", "a", "A", "b", "@", "x.com", "X.COM", "x", "com"), { maxLength: 4 })
  .map((parts) => parts.join(""));
export const addressShapeArb = fc
  .record({
    prefix: fc.constantFrom("", "a", "A", "a@", "A@X", "b@x.com", "a@x.com."),
    suffix: fc.constantFrom("", ".", "@x.com", "@X.COM.", ".com", "m.", "@y.com"),
  })
  .map(({ prefix, suffix }): AbstractValue => ({ kind: "string", prefix, suffix, provenance: [] }));
export const addressMemberArb = (v: AbstractValue) =>
  v.kind === "string"
    ? fc.oneof(
        memberArb(v),
        addressPiece.map((middle) => v.prefix + middle + v.suffix),
      )
    : memberArb(v);
const ADDRESSES = ["a@x.com", "A@x.com.", "b@X.COM", "a@y.com", "a"];
export const addressConstraintArb: fc.Arbitrary<ValueConstraint> = fc.oneof(
  fc.constantFrom("*@x.com", "a@*", "*@x.com.", "A*@X.COM", "?@x.com", "*@*.com").map((glob) => ({ glob })),
  fc.subarray(ADDRESSES, { minLength: 1 }).map((values) => ({ in: values })),
  fc.subarray(ADDRESSES, { minLength: 1 }).map((values) => ({ not_in: values })),
  fc.constantFrom(...ADDRESSES).map((eq) => ({ eq })),
);
