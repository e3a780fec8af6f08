import { describe, expect, it } from "vitest";
import { normalizePath } from "../../src/constraint/index.js";

describe("normalizePath", () => {
  it.each([
    ["/", "/"],
    ["/a/b", "/a/b"],
    ["/a/b/", "/a/b"],
    ["//a///b//", "/a/b"],
    ["/a/./b/.", "/a/b"],
    ["/a/b/..", "/a"],
    ["/a/../../..", "/"],
    ["/..", "/"],
    ["/a/..b/c", "/a/..b/c"],
    ["/a/.../c", "/a/.../c"],
    ["/a b/ c", "/a b/ c"],
  ])("%s → %s", (input, expected) => {
    expect(normalizePath(input)).toBe(expected);
  });

  it.each(["", "a/b", "./a", "../a", "~", "~/a", " /a", "\\a", "/a\0b"])("refuses %j", (input) => {
    expect(normalizePath(input)).toBeNull();
  });
});
