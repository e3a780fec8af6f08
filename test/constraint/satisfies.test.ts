import { describe, expect, it } from "vitest";
import { satisfies } from "../../src/constraint/index.js";
import type { ValueConstraint } from "../../src/model/constraint.js";
import type { Json } from "../../src/model/json.js";

type Row = [string, ValueConstraint, Json, boolean];

function table(rows: Row[]) {
  it.each(rows)("%s", (_name, c, value, expected) => {
    expect(satisfies(c, value)).toBe(expected);
  });
}

describe("eq, in, not_in: deep JSON equality", () => {
  table([
    ["eq string", { eq: "a" }, "a", true],
    ["eq other string", { eq: "a" }, "b", false],
    ["eq number vs string", { eq: 1 }, "1", false],
    ["eq null", { eq: null }, null, true],
    ["eq object, key order ignored", { eq: { a: 1, b: [2] } }, { b: [2], a: 1 }, true],
    ["eq object, extra key", { eq: { a: 1 } }, { a: 1, b: 2 }, false],
    ["eq nested difference", { eq: { a: { b: 1 } } }, { a: { b: 2 } }, false],
    ["in member", { in: ["a", "b"] }, "b", true],
    ["in non-member", { in: ["a", "b"] }, "c", false],
    ["in empty set", { in: [] }, "a", false],
    ["in object member", { in: [{ x: 1 }] }, { x: 1 }, true],
    ["in is case-sensitive", { in: ["Report"] }, "report", false],
    ["an address compares in canonical form", { in: ["bob@example.com"] }, "Bob@EXAMPLE.com.", true],
    ["an address is not another string", { eq: "bob@example.com" }, "bob@example.com ", false],
    ["an address operand against a non-string", { in: ["bob@example.com"] }, 1, false],
    ["not_in catches the canonical form", { not_in: ["ceo@rival.com"] }, "CEO@rival.com.", false],
    ["not_in non-member", { not_in: ["a"] }, "b", true],
    ["not_in member", { not_in: ["a"] }, "a", false],
    ["not_in empty set", { not_in: [] }, 5, true],
    ["true is not 1", { in: [1] }, true, false],
  ]);
});

describe("under: normalized absolute paths", () => {
  table([
    ["inside", { under: "/a" }, "/a/b", true],
    ["the base itself", { under: "/a" }, "/a", true],
    ["sibling with a common prefix", { under: "/a" }, "/ab", false],
    ["sibling file with a common prefix", { under: "/home/u/Sandbox" }, "/home/u/Sandbox2/f", false],
    ["dot-dot escaping", { under: "/a" }, "/a/../etc/passwd", false],
    ["dot-dot staying inside", { under: "/a" }, "/a/b/../c", true],
    ["dot-dot climbing back in", { under: "/home/u/Sandbox" }, "/etc/../home/u/Sandbox/f", true],
    ["dot-dot past the root", { under: "/a" }, "/../../a/x", true],
    ["double slashes", { under: "/a/b" }, "//a//b//c", true],
    ["dot segments", { under: "/a" }, "/./a/./b", true],
    ["trailing slash on the value", { under: "/a" }, "/a/", true],
    ["trailing slash on the base", { under: "/a/" }, "/a", true],
    ["trailing slash on the base, sibling", { under: "/a/" }, "/ab", false],
    ["relative value", { under: "/a" }, "a/b", false],
    ["dot-relative value", { under: "/a" }, "./a/b", false],
    ["tilde is not expanded", { under: "/home/u" }, "~/x", false],
    ["tilde base matches nothing", { under: "~/x" } as ValueConstraint, "/home/u/x", false],
    ["empty string", { under: "/" }, "", false],
    ["everything absolute is under /", { under: "/" }, "/etc/passwd", true],
    ["NUL byte", { under: "/a" }, "/a/b\0/../../etc", false],
    ["case matters", { under: "/home/u" }, "/HOME/u/x", false],
    ["not a string", { under: "/a" }, 3, false],
    ["dot-dot as a file name prefix stays a name", { under: "/a" }, "/a/..b", true],
  ]);
});

describe("glob: * and ?, whole string", () => {
  table([
    ["email domain", { glob: "*@example.com" }, "bob@example.com", true],
    ["email domain, other domain", { glob: "*@example.com" }, "bob@example.com.evil", false],
    ["email domain, suffix lookalike", { glob: "*@example.com" }, "bob@evilexample.com", false],
    ["email pattern ignores ASCII case", { glob: "*@example.com" }, "Bob@EXAMPLE.com", true],
    ["email pattern in upper case", { glob: "*@EXAMPLE.COM" }, "bob@example.com", true],
    ["email pattern, trailing dot of the domain", { glob: "*@rival.com" }, "ceo@rival.com.", true],
    ["email pattern, trailing dot in upper case", { glob: "*@rival.com" }, "CEO@RIVAL.COM.", true],
    ["email pattern, two trailing dots", { glob: "*@rival.com" }, "ceo@rival.com..", false],
    ["email pattern with a trailing dot", { glob: "*@rival.com." }, "ceo@rival.com", true],
    ["star matches empty", { glob: "a*" }, "a", true],
    ["question mark one char", { glob: "a?c" }, "abc", true],
    ["question mark not empty", { glob: "a?c" }, "ac", false],
    ["question mark is one UTF-16 unit", { glob: "?" }, "é", true],
    ["astral char is two units", { glob: "??" }, "😀", true],
    ["brackets are literal", { glob: "[ab]" }, "a", false],
    ["brackets literal match", { glob: "[ab]" }, "[ab]", true],
    ["regex chars literal", { glob: "a.c" }, "abc", false],
    ["path glob is case-sensitive", { glob: "/home/*" }, "/HOME/x", false],
    ["star crosses slashes", { glob: "/a/*" }, "/a/b/c", true],
    ["anchored at the start", { glob: "b*" }, "ab", false],
    ["several stars", { glob: "*a*b*c*" }, "xxaxxbxxcxx", true],
    ["several stars, wrong order", { glob: "*a*b*c*" }, "cba", false],
    ["not a string", { glob: "*" }, 1, false],
    ["adversarial text stays fast", { glob: "*a*a*a*a*a*a*a*a*b" }, "a".repeat(5000), false],
  ]);
});

describe("host_in: WHATWG URL host, exact and case-insensitive", () => {
  const h: ValueConstraint = { host_in: ["api.x.com"] };
  table([
    ["plain", h, "https://api.x.com/v1", true],
    ["no path", h, "https://api.x.com", true],
    ["uppercase host", h, "https://API.X.COM/v1", true],
    ["uppercase entry", { host_in: ["API.x.com"] }, "https://api.x.com/", true],
    ["uppercase scheme", h, "HTTPS://api.x.com/", true],
    ["userinfo trick", h, "https://api.x.com@evil.com/", false],
    ["userinfo with password", h, "https://api.x.com:443@evil.com/", false],
    ["userinfo on the allowed host", h, "https://user:pw@api.x.com/", true],
    ["fragment trick", h, "http://evil.com#@api.x.com", false],
    ["query trick", h, "http://evil.com?@api.x.com/", false],
    ["backslash trick", h, "https://evil.com\\@api.x.com/", false],
    ["subdomain is no match", h, "https://a.api.x.com/", false],
    ["parent domain is no match", h, "https://x.com/", false],
    ["suffix lookalike", h, "https://evilapi.x.com/", false],
    ["host with trailing dot", h, "https://api.x.com./", true],
    ["missing scheme", h, "api.x.com/v1", false],
    ["scheme-relative", h, "//api.x.com/v1", false],
    ["other scheme", h, "ftp://api.x.com/", false],
    ["javascript scheme", h, "javascript://api.x.com/%0aalert(1)", false],
    ["not a URL", h, "hello", false],
    ["any port when the entry has none", h, "https://api.x.com:8443/", true],
    ["port entry, same port", { host_in: ["api.x.com:8443"] }, "https://api.x.com:8443/", true],
    ["port entry, other port", { host_in: ["api.x.com:8443"] }, "https://api.x.com/", false],
    ["port entry, default port explicit", { host_in: ["api.x.com:443"] }, "https://api.x.com:443/", true],
    ["port entry, default port implicit", { host_in: ["api.x.com:443"] }, "https://api.x.com/", true],
    ["port entry, http default is 80", { host_in: ["api.x.com:443"] }, "http://api.x.com/", false],
    ["IPv6", { host_in: ["[::1]"] }, "http://[::1]:8080/", true],
    ["IPv6 with port", { host_in: ["[::1]:8080"] }, "http://[::1]:8080/", true],
    ["IPv6 other port", { host_in: ["[::1]:8080"] }, "http://[::1]:9090/", false],
    ["IPv4 in hex is parsed", { host_in: ["127.0.0.1"] }, "http://0x7f.1/", true],
    ["IDN is compared in punycode", { host_in: ["bücher.example"] }, "https://xn--bcher-kva.example/", true],
    ["entry with a path allows nothing", { host_in: ["api.x.com/v1"] }, "https://api.x.com/v1", false],
    ["entry with userinfo allows nothing", { host_in: ["a@api.x.com"] }, "https://api.x.com/", false],
    ["tab inside the host is removed by the parser", h, "https://api.x\t.com/", true],
    ["not a string", h, 5, false],
  ]);
});

describe("max_length", () => {
  table([
    ["short string", { max_length: 3 }, "abc", true],
    ["long string", { max_length: 3 }, "abcd", false],
    ["UTF-16 units", { max_length: 1 }, "😀", false],
    ["array length", { max_length: 2 }, ["a", "bbbbbb"], true],
    ["array too long", { max_length: 2 }, ["a", "b", "c"], false],
    ["number fails", { max_length: 10 }, 5, false],
    ["object fails", { max_length: 10 }, {}, false],
    ["null fails", { max_length: 10 }, null, false],
  ]);
});

describe("prefix and suffix: exact", () => {
  table([
    ["prefix", { prefix: "https://api.x.com/" }, "https://api.x.com/v1?q=a*b", true],
    ["prefix is the whole string", { prefix: "ab" }, "ab", true],
    ["prefix, other start", { prefix: "https://api.x.com/" }, "https://api.x.com.evil.com/", false],
    ["prefix has no wildcards", { prefix: "a*" }, "ab", false],
    ["prefix is case-sensitive, even with @", { prefix: "Bob@" }, "bob@x.com", false],
    ["suffix", { suffix: "?a=1&b=*" }, "https://x.com/p?a=1&b=*", true],
    ["suffix, other end", { suffix: ".txt" }, "/a/b.md", false],
    ["suffix per element", { suffix: "@x.com" }, ["a@x.com", "b@y.com"], false],
    ["not a string", { prefix: "1" }, 1, false],
  ]);
});

describe("min_length, type, elements, fields: the value itself", () => {
  table([
    ["min_length string", { min_length: 2 }, "ab", true],
    ["min_length string too short", { min_length: 3 }, "ab", false],
    ["min_length array", { min_length: 2 }, ["a", "b"], true],
    ["min_length array too short", { min_length: 2 }, ["abc"], false],
    ["min_length number fails", { min_length: 0 }, 5, false],
    ["type string", { type: ["string"] }, "a", true],
    ["type is not element-wise", { type: ["string"] }, ["a"], false],
    ["type array", { type: ["array"] }, ["a"], true],
    ["type one of several", { type: ["string", "null"] }, null, true],
    ["type object is no array", { type: ["object"] }, [], false],
    ["type number", { type: ["number"] }, 1.5, true],
    ["type boolean", { type: ["boolean"] }, false, true],
    ["elements", { elements: { in: ["a", "b"] } }, ["a", "b", "a"], true],
    ["elements, one out", { elements: { in: ["a", "b"] } }, ["a", "c"], false],
    ["elements of the empty list", { elements: { in: [] } }, [], true],
    ["elements wants a list", { elements: { in: ["a"] } }, "a", false],
    ["elements with a typed element", { elements: { type: ["string"] } }, ["a", ["b"]], false],
    ["fields", { fields: { a: { eq: 1 }, b: { type: ["string"] } } }, { a: 1, b: "x" }, true],
    ["fields, absent field is null", { fields: { a: { eq: 1 }, b: { type: ["string", "null"] } } }, { a: 1 }, true],
    [
      "fields, absent field that may not be null",
      { fields: { a: { eq: 1 }, b: { type: ["string"] } } },
      { a: 1 },
      false,
    ],
    ["fields, an unlisted key", { fields: { a: { eq: 1 } } }, { a: 1, c: 2 }, false],
    ["fields, a bad field", { fields: { a: { eq: 1 } } }, { a: 2 }, false],
    ["fields wants an object", { fields: {} }, [], false],
    ["fields, null is no object", { fields: {} }, null, false],
    ["fields, an inherited name is no field", { fields: { a: { eq: 1 } } }, { a: 1, constructor: 1 }, false],
  ]);
});

describe("all, any, not", () => {
  table([
    ["all true", { all: [{ glob: "*@x.com" }, { max_length: 10 }] }, "a@x.com", true],
    ["all one false", { all: [{ glob: "*@x.com" }, { max_length: 3 }] }, "a@x.com", false],
    ["any one true", { any: [{ eq: 1 }, { eq: 2 }] }, 2, true],
    ["any none", { any: [{ eq: 1 }, { eq: 2 }] }, 3, false],
    ["not", { not: { eq: 1 } }, 2, true],
    ["not not", { not: { not: { eq: 1 } } }, 1, true],
    ["empty all is true", { all: [] }, 1, true],
    ["empty any is false", { any: [] }, 1, false],
  ]);
});

describe("arrays: element-wise, max_length and all on the array", () => {
  const to: ValueConstraint = { in: ["a@x.com", "b@x.com"] };
  table([
    ["every element in", to, ["a@x.com", "b@x.com"], true],
    ["one element out", to, ["a@x.com", "eve@evil.com"], false],
    ["empty array vacuously", to, [], true],
    ["eq does not match the array as a whole", { eq: ["a"] }, ["a"], false],
    ["eq applies per element", { eq: "a" }, ["a", "a"], true],
    ["not: every element fails", { not: { in: ["a"] } }, ["b", "c"], true],
    ["not: one element in", { not: { in: ["a"] } }, ["a", "c"], false],
    ["not on empty array", { not: { in: ["a"] } }, [], true],
    ["any per element", { any: [{ eq: "a" }, { eq: "b" }] }, ["a", "b"], true],
    ["any per element, one fails", { any: [{ eq: "a" }, { eq: "b" }] }, ["a", "c"], false],
    ["all at the array: length and elements", { all: [{ max_length: 2 }, to] }, ["a@x.com", "b@x.com"], true],
    ["all at the array: too long", { all: [{ max_length: 1 }, to] }, ["a@x.com", "b@x.com"], false],
    ["not max_length goes to elements", { not: { max_length: 1 } }, ["aa", "bb", "cc"], true],
    ["any max_length goes to elements", { any: [{ max_length: 1 }] }, ["a", "b", "c"], true],
    ["nested arrays recurse", to, [["a@x.com"], ["b@x.com", "a@x.com"]], true],
    ["nested arrays, bad leaf", to, [["a@x.com"], ["c@x.com"]], false],
    ["under per element", { under: "/a" }, ["/a/1", "/a/2"], true],
    ["under per element, one escapes", { under: "/a" }, ["/a/1", "/a/../b"], false],
    ["host_in per element", { host_in: ["api.x.com"] }, ["https://api.x.com/", "https://evil.com/"], false],
    ["not_in per element", { not_in: ["a"] }, ["b", "a"], false],
  ]);
});

describe("fails closed", () => {
  it("a constraint of unknown shape is false", () => {
    expect(satisfies({ under_: "/a" } as unknown as ValueConstraint, "/a")).toBe(false);
    expect(satisfies({} as ValueConstraint, "x")).toBe(false);
  });
});
