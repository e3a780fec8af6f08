import { describe, expect, it } from "vitest";
import { canonicalFieldPath, elementPath, fieldPath, pathCovers, urlHost } from "../../src/constraint/index.js";

describe("paths into a result", () => {
  it("are written one way: identifiers after a dot, any other name as a JSON string, [*] for every element", () => {
    expect(fieldPath("$", "iban")).toBe("$.iban");
    expect(fieldPath("$", "a b")).toBe('$["a b"]');
    expect(fieldPath("$", "*")).toBe('$["*"]');
    expect(elementPath(fieldPath("$", "items"))).toBe("$.items[*]");
    expect(canonicalFieldPath('$["payee"]["iban"]')).toBe("$.payee.iban");
    expect(canonicalFieldPath('$["a\\"]b"]')).toBe('$["a\\"]b"]');
  });

  it("anything else is not a path", () => {
    for (const bad of ["", "iban", "$.", "$..iban", "$.items[0]", "$[iban]", "$.a b", '$["a"', "$.items[*", "$ .a"])
      expect(canonicalFieldPath(bad), bad).toBeUndefined();
  });

  it("a field covers itself and what is inside it, never its parent or a sibling with a longer name", () => {
    expect(pathCovers("$", "$.memo")).toBe(true);
    expect(pathCovers("$.payee", "$.payee.iban")).toBe(true);
    expect(pathCovers("$.payee", "$.payee")).toBe(true);
    expect(pathCovers("$.iban", "$")).toBe(false);
    expect(pathCovers("$.iban", "$.ibanx")).toBe(false);
    expect(pathCovers("$.payee.iban", "$.payee")).toBe(false);
    expect(pathCovers("$.items[*].iban", "$.items[*].iban")).toBe(true);
    expect(pathCovers("$.items[*].iban", "$.items[*]")).toBe(false);
    expect(pathCovers('$.items["*"]', "$.items[*]")).toBe(false); // a field named * is no element
    expect(pathCovers('$["a\\"]"]', '$["a\\"]"].b')).toBe(true);
    expect(pathCovers("$.a", "not a path")).toBe(false);
  });
});

describe("the host a url goes to", () => {
  it("is lower case, with the port only when it is not the scheme's default", () => {
    expect(urlHost("https://API.Bank.example./x", false)).toBe("api.bank.example");
    expect(urlHost("http://api.bank.example:80/x", false)).toBe("api.bank.example");
    expect(urlHost("http://api.bank.example:443/x", false)).toBe("api.bank.example:443");
    expect(urlHost("https://[::1]:8443/", false)).toBe("[::1]:8443");
  });

  it("of a prefix only when the prefix holds the whole authority", () => {
    expect(urlHost("https://api.bank.example/", true)).toBe("api.bank.example");
    expect(urlHost("https://api.bank.example", true)).toBeNull(); // `.evil.example` may follow
    expect(urlHost("https://api.bank.example@", true)).toBeNull();
    expect(urlHost("https://user@api.bank.example/", true)).toBe("api.bank.example"); // the parser's reading: userinfo is no host
  });

  it("is none for what is no http(s) URL", () => {
    expect(urlHost("ftp://api.bank.example/", false)).toBeNull();
    expect(urlHost("api.bank.example", false)).toBeNull();
    expect(urlHost("/relative", true)).toBeNull();
  });
});
