// The canonical forms of formatted arguments: what the wrapper checks and the connector sends.
import { describe, expect, it } from "vitest";
import { canonicalPath } from "../../src/constraint/canonical-path.js";
import { canonicalUrl } from "../../src/constraint/canonical-url.js";
import { canonicalForm } from "../../src/constraint/canonical-value.js";

describe("canonicalUrl", () => {
  it("keeps a URL already in its WHATWG form", () => {
    for (const url of [
      "https://api.x.com/",
      "http://api.x.com/v1/items?q=a.b&r=%2F#frag",
      "https://api.x.com:8443/a/b.c/",
      "http://127.0.0.1:3000/public/x",
      "https://[::1]/a",
      "https://api.x.com./a",
      "https://xn--bcher-kva.example/",
      "https://api.x.com/a%20b",
      "https://api.x.com/%41",
      "https://api.x.com/a/..b/.c/c.;/...",
      "https://api.x.com/a?x=/../b#/../c",
    ]) {
      expect(canonicalUrl(url), url).toEqual({ ok: true, canonical: url });
    }
  });

  it("rewrites only what a person would not notice: scheme and host case, a default port, an empty path", () => {
    const table: [string, string][] = [
      ["HTTPS://API.X.com/Path", "https://api.x.com/Path"],
      ["https://api.x.com:443/a", "https://api.x.com/a"],
      ["http://api.x.com:80/a", "http://api.x.com/a"],
      ["https://api.x.com:/a", "https://api.x.com/a"],
      ["https://api.x.com", "https://api.x.com/"],
      ["https://api.x.com?q=1", "https://api.x.com/?q=1"],
      ["https://api.x.com#f", "https://api.x.com/#f"],
    ];
    for (const [raw, canonical] of table) expect(canonicalUrl(raw), raw).toEqual({ ok: true, canonical });
  });

  it("refuses every other difference, naming why", () => {
    const table: [string, string][] = [
      ["https://api.x.com/public/../admin", "dot_segment"],
      ["https://api.x.com/public/./x", "dot_segment"],
      ["https://api.x.com/public/..", "dot_segment"],
      ["https://api.x.com/..", "dot_segment"],
      ["https://api.x.com/public/..;/admin", "dot_segment"],
      ["https://api.x.com/public/..;x=1/admin", "dot_segment"],
      ["https://api.x.com/public/.;/admin", "dot_segment"],
      ["https://api.x.com/public/%2e%2e/admin", "encoded_separator"],
      ["https://api.x.com/public/%2E./admin", "encoded_separator"],
      ["https://api.x.com/public/.%2e/admin", "encoded_separator"],
      ["https://api.x.com/public/..%2fadmin", "encoded_separator"],
      ["https://api.x.com/public/..%2Fadmin", "encoded_separator"],
      ["https://api.x.com/public/..%5cadmin", "encoded_separator"],
      ["https://api.x.com/public/a%2eb", "encoded_separator"],
      ["https://api.x.com/public\\..\\admin", "backslash"],
      ["https://api.x.com\\admin", "backslash"],
      ["https://api.x.com/pub\tlic/../admin", "whitespace_or_control"],
      ["https://api.x.com/pu\nblic", "whitespace_or_control"],
      ["https://api.x.com/pu\rblic", "whitespace_or_control"],
      [" https://api.x.com/public", "whitespace_or_control"],
      ["https://api.x.com/public ", "whitespace_or_control"],
      ["\0https://api.x.com/", "whitespace_or_control"],
      ["https://api.x.com/a b", "whitespace_or_control"],
      ["https://api.x.com/a\x7f", "whitespace_or_control"],
      ["https://api.x.com/é", "changed"],
      ['https://api.x.com/a"b', "changed"],
      ["https://api.x.com/a<b", "changed"],
      ["https://api.x.com/#a b".replace(" ", "`"), "changed"],
      ["https://user:pw@api.x.com/", "userinfo"],
      ["https://api.x.com@evil.com/", "userinfo"],
      ["https://@api.x.com/", "userinfo"],
      ["https://0x7f.1/", "host_form"],
      ["http://2130706433/", "host_form"],
      ["https://127.1/", "host_form"],
      ["https://bücher.example/", "host_form"],
      ["https://api%2ex.com/", "host_form"],
      ["https://[0:0::1]/", "host_form"],
      ["https://api.x.com:0443/", "host_form"],
      ["https:///api.x.com/", "host_form"],
      ["https:/api.x.com/", "not_a_url"],
      ["https:api.x.com/", "not_a_url"],
      ["//api.x.com/", "not_a_url"],
      ["/public/x", "not_a_url"],
      ["api.x.com/public", "not_a_url"],
      ["https://api.x.com:99999/", "not_a_url"],
      ["", "not_a_url"],
      ["ftp://api.x.com/", "scheme"],
      ["file:///etc/passwd", "scheme"],
      ["javascript://api.x.com/%0aalert(1)", "scheme"],
    ];
    for (const [raw, why] of table) expect(canonicalUrl(raw), JSON.stringify(raw)).toMatchObject({ ok: false, why });
  });

  it("names the form a refused URL would have been sent in", () => {
    expect(canonicalUrl("https://api.x.com/public/../admin")).toEqual({
      ok: false,
      why: "dot_segment",
      canonical: "https://api.x.com/admin",
    });
    expect(canonicalUrl("https://api.x.com/public/%2e%2e/admin")).toEqual({
      ok: false,
      why: "encoded_separator",
      canonical: "https://api.x.com/admin",
    });
  });

  it("is a fixed point: a canonical URL's canonical form is itself", () => {
    for (const raw of ["HTTPS://API.X.com:443", "http://a.b:80?x", "https://api.x.com/a/b?c#d"]) {
      const form = canonicalUrl(raw);
      if (!form.ok) throw new Error(raw);
      expect(canonicalUrl(form.canonical)).toEqual(form);
    }
  });
});

describe("canonicalPath", () => {
  it("keeps an absolute path in lexical normal form", () => {
    for (const path of [
      "/",
      "/a",
      "/a/b.c",
      "/home/u/Sandbox/notes.txt",
      "/a/..b",
      "/a/.b",
      "/a/b..",
      "/a\\..\\b",
      "/a/caf\u00e9 \u{1F600}.txt",
    ])
      expect(canonicalPath(path), path).toEqual({ ok: true, canonical: path });
  });

  it("refuses any other form rather than rewrite it", () => {
    const table: [string, string][] = [
      ["a/b", "not_absolute"],
      ["", "not_absolute"],
      ["~/x", "not_absolute"],
      ["./x", "not_absolute"],
      ["/a/\0b", "nul"],
      ["/a/b\uD800.txt", "lone_surrogate"],
      ["/a/\uDC00", "lone_surrogate"],
      ["/a/../b", "dot_segment"],
      ["/a/./b", "dot_segment"],
      ["/a/..", "dot_segment"],
      ["/..", "dot_segment"],
      ["/a//b", "empty_segment"],
      ["//a", "empty_segment"],
      ["/a/", "trailing_slash"],
    ];
    for (const [raw, why] of table) expect(canonicalPath(raw), JSON.stringify(raw)).toEqual({ ok: false, why });
  });
});

describe("canonicalForm of an address", () => {
  it("folds case and one trailing dot; refuses two; leaves text without @ as it is (no address: compared exactly)", () => {
    expect(canonicalForm("email", "Bob@Example.COM.")).toEqual({ ok: true, canonical: "bob@example.com" });
    expect(canonicalForm("email", "bob@example.com..")).toMatchObject({ ok: false, why: "trailing_dots" });
    for (const text of [".", "A", "Bob.", ""])
      expect(canonicalForm("email", text)).toEqual({ ok: true, canonical: text });
  });
});
