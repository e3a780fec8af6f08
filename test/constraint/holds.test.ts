import { describe, expect, it } from "vitest";
import { holds } from "../../src/constraint/index.js";
import type { AbstractValue } from "../../src/model/abstract.js";
import type { ValueConstraint, Verdict3 } from "../../src/model/constraint.js";
import type { Json } from "../../src/model/json.js";

const c = (...values: Json[]): AbstractValue => ({ kind: "const", values });
const str = (prefix: string, suffix = ""): AbstractValue => ({ kind: "string", prefix, suffix, provenance: [] });
const arr = (element: AbstractValue, min: number, max: number | null): AbstractValue => ({
  kind: "array",
  element,
  length: { min, max },
});
const unknown: AbstractValue = {
  kind: "unknown",
  provenance: [{ source: "result of email.get_draft", untrusted: true }],
};
const rec: AbstractValue = { kind: "record", fields: { a: c(1) } };

type Row = [string, ValueConstraint, AbstractValue, Verdict3];
function table(rows: Row[]) {
  it.each(rows)("%s", (_name, constraint, value, expected) => {
    expect(holds(constraint, value)).toBe(expected);
  });
}

describe("constants: each member checked", () => {
  table([
    ["all in", { in: ["a", "b"] }, c("a", "b"), "yes"],
    ["none in", { in: ["a", "b"] }, c("x", "y"), "no"],
    ["some in", { in: ["a", "b"] }, c("a", "y"), "maybe"],
    ["array constants element-wise", { in: ["a", "b"] }, c(["a", "b"], ["b"]), "yes"],
    ["array constant with an outsider", { in: ["a", "b"] }, c(["a", "x"]), "no"],
  ]);
});

describe("unknown and records", () => {
  table([
    ["unknown is maybe", { in: ["a"] }, unknown, "maybe"],
    ["unknown under all", { all: [{ eq: 1 }, { eq: 2 }] }, unknown, "maybe"],
    ["record eq string", { eq: "a" }, rec, "no"],
    ["record eq object", { eq: { a: 1 } }, rec, "maybe"],
    ["record in without objects", { in: ["a", 1] }, rec, "no"],
    ["record not_in without objects", { not_in: ["a"] }, rec, "yes"],
    ["record under", { under: "/a" }, rec, "no"],
    ["record max_length", { max_length: 5 }, rec, "no"],
    ["record not glob", { not: { glob: "*" } }, rec, "yes"],
  ]);
});

describe("partly known strings: eq, in, not_in, max_length", () => {
  table([
    ["eq member", { eq: "report-1.txt" }, str("report-", ".txt"), "maybe"],
    ["eq non-member", { eq: "notes.txt" }, str("report-", ".txt"), "no"],
    ["eq number", { eq: 1 }, str(""), "no"],
    ["in with a member", { in: ["x", "report-2.txt"] }, str("report-", ".txt"), "maybe"],
    ["in without members", { in: ["x", "y"] }, str("report-"), "no"],
    ["not_in without members", { not_in: ["x"] }, str("report-"), "yes"],
    ["not_in with a member", { not_in: ["report-"] }, str("report-"), "maybe"],
    ["max_length prefix too long", { max_length: 3 }, str("abcd"), "no"],
    ["max_length prefix+suffix too long", { max_length: 5 }, str("abc", "xyz"), "no"],
    ["max_length overlap counted once", { max_length: 3 }, str("ab", "bc"), "maybe"],
    ["max_length never yes", { max_length: 100 }, str("a"), "maybe"],
  ]);
});

describe("addresses compare in canonical form", () => {
  table([
    ["in: a shape in upper case may be the address", { in: ["bob@x.com"] }, str("BOB@"), "maybe"],
    ["in: a shape with a trailing dot may be the address", { in: ["bob@x.com"] }, str("", "@x.com."), "maybe"],
    ["in: a shape that cannot be it", { in: ["bob@x.com"] }, str("", "@y.com"), "no"],
    ["not_in: the trailing dot does not escape", { not_in: ["ceo@rival.com"] }, str("ceo@rival.com"), "maybe"],
    ["glob: the trailing dot is the same domain", { glob: "*@rival.com" }, str("", "@RIVAL.com."), "yes"],
    ["glob: an open end may add a dot", { glob: "*@rival.com" }, str("", "@rival.com"), "yes"],
    ["glob: another domain", { glob: "*@rival.com" }, str("", "@rival.org."), "no"],
    [
      "glob: a prefix ending in a dot may be all of it",
      { not: { glob: "*@rival.com" } },
      str("ceo@rival.com."),
      "maybe",
    ],
    ["constants", { not: { glob: "*@rival.com" } }, c("ceo@rival.com.", "CEO@Rival.Com"), "no"],
  ]);
});

describe("partly known strings: prefix, suffix, type, min_length", () => {
  table([
    ["prefix known", { prefix: "https://api" }, str("https://api.x.com/"), "yes"],
    ["prefix extends the known one", { prefix: "https://api.x.com/v1" }, str("https://api.x.com/"), "maybe"],
    ["prefix disagrees", { prefix: "https://evil" }, str("https://api"), "no"],
    ["suffix known", { suffix: ".txt" }, str("", "-1.txt"), "yes"],
    ["suffix extends", { suffix: "a.txt" }, str("", ".txt"), "maybe"],
    ["suffix disagrees", { suffix: ".md" }, str("", ".txt"), "no"],
    ["type string", { type: ["string"] }, str("a"), "yes"],
    ["type not string", { type: ["array", "null"] }, str("a"), "no"],
    ["min_length from the known parts", { min_length: 3 }, str("ab", "cd"), "yes"],
    ["min_length may hold", { min_length: 9 }, str("ab", "cd"), "maybe"],
    ["elements of a string", { elements: { type: ["string"] } }, str("a"), "no"],
    ["fields of a string", { fields: {} }, str("a"), "no"],
  ]);
});

describe("arrays and records: the value itself", () => {
  table([
    ["type array", { type: ["array"] }, arr(str("a"), 0, 3), "yes"],
    ["type string of an array", { type: ["string"] }, arr(str("a"), 1, 3), "no"],
    ["min_length yes", { min_length: 1 }, arr(str("a"), 1, 3), "yes"],
    ["min_length no", { min_length: 4 }, arr(str("a"), 1, 3), "no"],
    ["min_length maybe", { min_length: 2 }, arr(str("a"), 1, null), "maybe"],
    ["elements typed", { elements: { type: ["string"] } }, arr(str("a"), 1, 3), "yes"],
    ["elements wrong, maybe empty", { elements: { type: ["null"] } }, arr(str("a"), 0, 3), "maybe"],
    ["elements wrong, never empty", { elements: { type: ["null"] } }, arr(str("a"), 1, 3), "no"],
    ["fields of an array", { fields: {} }, arr(str("a"), 0, 0), "no"],
    ["record type", { type: ["object"] }, rec, "yes"],
    ["record fields hold", { fields: { a: { eq: 1 } } }, rec, "yes"],
    ["record fields, listed key may be absent", { fields: { a: { eq: 1 }, b: { type: ["null"] } } }, rec, "yes"],
    ["record fields, listed key always absent", { fields: { a: { eq: 1 }, b: { type: ["string"] } } }, rec, "no"],
    ["record fields, a key it does not allow", { fields: {} }, rec, "no"],
    [
      "record fields, an optional key it does not allow",
      { fields: {} },
      { kind: "record", fields: { a: c(1, null) } },
      "maybe",
    ],
    ["record fields, a bad field", { fields: { a: { eq: 2 } } }, rec, "no"],
    ["unknown type", { type: ["string"] }, unknown, "maybe"],
  ]);
});

describe("partly known strings: under (the middle may hold ..)", () => {
  table([
    ["prefix inside the sandbox is only maybe", { under: "/home/u/Sandbox" }, str("/home/u/Sandbox/"), "maybe"],
    ["prefix elsewhere can climb back in", { under: "/home/u/Sandbox" }, str("/etc/"), "maybe"],
    ["prefix elsewhere with a suffix", { under: "/home/u/Sandbox" }, str("/etc/", "/../../x"), "maybe"],
    ["relative prefix is no", { under: "/home/u" }, str("notes/"), "no"],
    ["tilde prefix is no", { under: "/home/u" }, str("~/"), "no"],
    ["NUL in the prefix is no", { under: "/a" }, str("/a/\0"), "no"],
    ["NUL in the suffix is no", { under: "/a" }, str("/a/", "\0"), "no"],
    ["empty prefix is maybe", { under: "/a" }, str("", "/x"), "maybe"],
    ["under / is still maybe (NUL)", { under: "/" }, str("/"), "maybe"],
  ]);
});

describe("partly known strings: glob", () => {
  table([
    ["suffix fixes the domain", { glob: "*@example.com" }, str("", "@example.com"), "yes"],
    ["suffix fixes the domain, case folded", { glob: "*@example.com" }, str("", "@EXAMPLE.com"), "yes"],
    ["longer suffix still fine", { glob: "*.com" }, str("", "@example.com"), "yes"],
    ["other domain", { glob: "*@example.com" }, str("", "@evil.com"), "no"],
    ["unknown domain", { glob: "*@example.com" }, str("bob@"), "maybe"],
    ["prefix and suffix both needed", { glob: "/a/*.txt" }, str("/a/", ".txt"), "yes"],
    ["prefix contradicts", { glob: "/a/*" }, str("/b/"), "no"],
    ["prefix shorter than the literal head", { glob: "/abc/*" }, str("/a"), "maybe"],
    ["prefix shorter, contradicting", { glob: "/abc/*" }, str("/x"), "no"],
    ["overlapping prefix and suffix need room", { glob: "ab*bc" }, str("ab", "bc"), "maybe"],
    ["no star: member", { glob: "abc" }, str("a", "c"), "maybe"],
    ["no star: non-member", { glob: "abc" }, str("x"), "no"],
    ["no star, too short", { glob: "a?" }, str("abc"), "no"],
    ["star alone", { glob: "*" }, str("x", "y"), "yes"],
    ["question mark in the head", { glob: "?b*" }, str("xb"), "yes"],
    ["head inside the prefix", { glob: "a*z" }, str("abc", "xyz"), "yes"],
    ["middle literal unknown", { glob: "a*m*z" }, str("a", "z"), "maybe"],
    ["middle literal in the prefix", { glob: "a*m*z" }, str("am", "z"), "yes"],
  ]);
});

describe("partly known strings: host_in", () => {
  const h: ValueConstraint = { host_in: ["api.x.com"] };
  table([
    ["authority closed by /", h, str("https://api.x.com/"), "yes"],
    ["authority closed by ?", h, str("https://api.x.com?q="), "yes"],
    ["authority closed by #", h, str("https://api.x.com#"), "yes"],
    ["authority closed by backslash", h, str("https://api.x.com\\"), "yes"],
    ["uppercase", h, str("HTTPS://API.X.COM/"), "yes"],
    ["authority open: could become api.x.com.evil.com", h, str("https://api.x.com"), "maybe"],
    ["authority open: userinfo could follow", h, str("https://api.x.com", "/v1"), "maybe"],
    ["decided other host", h, str("https://evil.com/"), "no"],
    ["userinfo in the prefix", h, str("https://api.x.com@evil.com/"), "no"],
    ["three slashes do not fix the host", h, str("http:///api.x.com"), "maybe"],
    ["three slashes, closed", h, str("http:///api.x.com/"), "maybe"],
    ["port decided", { host_in: ["api.x.com:8443"] }, str("https://api.x.com:8443/"), "yes"],
    ["port decided, other", { host_in: ["api.x.com:8443"] }, str("https://api.x.com/"), "no"],
    ["port open", { host_in: ["api.x.com:8443"] }, str("https://api.x.com:84"), "maybe"],
    ["bad port in a closed authority", h, str("https://api.x.com:99999/"), "maybe"],
    ["ftp scheme is no", h, str("ftp://"), "no"],
    ["no scheme is no", h, str("api.x.com/"), "no"],
    ["starts with a slash is no", h, str("/v1/"), "no"],
    ["scheme still open", h, str("htt"), "maybe"],
    ["empty prefix", h, str("", "/v1"), "maybe"],
    ["tab inside the scheme", h, str("ht\ttps://evil.com/"), "maybe"],
    ["newline after the scheme name", h, str("https\n://evil.com/"), "maybe"],
    ["leading space", h, str(" https://api.x.com/"), "maybe"],
    ["tab inside the authority", h, str("https://api.x\t.com/"), "maybe"],
    ["missing slashes", h, str("https:api.x.com/"), "maybe"],
  ]);
});

describe("arrays", () => {
  const to: ValueConstraint = { in: ["a", "b"] };
  table([
    ["elements all in", to, arr(c("a", "b"), 1, 3), "yes"],
    ["elements none in, non-empty", to, arr(c("x"), 1, 3), "no"],
    ["elements none in, maybe empty", to, arr(c("x"), 0, 3), "maybe"],
    ["always empty", to, arr(c("x"), 0, 0), "yes"],
    ["unknown elements", to, arr(unknown, 1, null), "maybe"],
    ["max_length bounded", { max_length: 3 }, arr(unknown, 0, 3), "yes"],
    ["max_length unbounded", { max_length: 3 }, arr(unknown, 0, null), "maybe"],
    ["max_length exceeded", { max_length: 3 }, arr(unknown, 4, null), "no"],
    ["all at the array level", { all: [{ max_length: 3 }, to] }, arr(c("a"), 1, 2), "yes"],
    ["all with a failing length", { all: [{ max_length: 3 }, to] }, arr(c("a"), 4, 5), "no"],
    ["not element-wise", { not: { in: ["a"] } }, arr(c("b", "c"), 1, 5), "yes"],
    ["not element-wise, all excluded", { not: { in: ["a"] } }, arr(c("a"), 1, 5), "no"],
    ["string elements", { glob: "*@x.com" }, arr(str("", "@x.com"), 1, null), "yes"],
    ["string elements wrong domain", { glob: "*@x.com" }, arr(str("", "@y.com"), 2, null), "no"],
  ]);
});

describe("Kleene logic", () => {
  const maybe: ValueConstraint = { in: ["a"] };
  const yes: ValueConstraint = { in: ["a", "b"] };
  const no: ValueConstraint = { in: ["z"] };
  const v = c("a", "b");
  table([
    ["and yes yes", { all: [yes, yes] }, v, "yes"],
    ["and yes maybe", { all: [yes, maybe] }, c("a", "b"), "maybe"],
    ["and maybe no", { all: [maybe, no] }, v, "no"],
    ["or no no", { any: [no, no] }, str("x"), "no"],
    ["or maybe yes", { any: [{ in: ["x"] }, { not_in: ["q"] }] }, str("x"), "yes"],
    ["or maybe no", { any: [{ in: ["x1"] }, { in: ["q"] }] }, str("x"), "maybe"],
    ["not maybe", { not: { in: ["x1"] } }, str("x"), "maybe"],
    ["not no", { not: { in: ["q"] } }, str("x"), "yes"],
    ["not yes", { not: { glob: "x*" } }, str("x"), "no"],
  ]);
});
