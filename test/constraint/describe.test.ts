import { describe, expect, it } from "vitest";
import { describeConstraint, describeEffectConstraint } from "../../src/constraint/index.js";
import type { EffectConstraint, ValueConstraint } from "../../src/model/constraint.js";

describe("describeConstraint", () => {
  it.each<[ValueConstraint, string]>([
    [{ eq: "a" }, "is a"],
    [{ eq: 3 }, "is 3"],
    [{ in: ["bob@example.com", "carol@example.com"] }, "is in [bob@example.com, carol@example.com]"],
    [{ not_in: [null] }, "is not in [null]"],
    [{ under: "/home/u/Sandbox" }, "is under /home/u/Sandbox"],
    [{ glob: "*@example.com" }, "matches *@example.com"],
    [{ host_in: ["api.x.com", "y.com:8443"] }, "has a host in [api.x.com, y.com:8443]"],
    [{ max_length: 3 }, "has length at most 3"],
    [{ all: [{ in: ["a"] }, { max_length: 2 }] }, "is in [a] and has length at most 2"],
    [{ any: [{ all: [{ eq: "a" }, { eq: "b" }] }, { eq: "c" }] }, "((is a and is b) or is c)"],
    [{ not: { glob: "*@rival.com" } }, "does not satisfy (matches *@rival.com)"],
    // Values that could pose as punctuation are quoted.
    [{ in: ["bob@example.com], [eve@evil.com"] }, 'is in ["bob@example.com], [eve@evil.com"]'],
    [{ eq: "" }, 'is ""'],
    [{ eq: { a: 1 } }, 'is {"a":1}'],
    [{ prefix: "https://api.x.com/" }, 'starts with "https://api.x.com/"'],
    [{ suffix: ".txt" }, 'ends with ".txt"'],
    [{ min_length: 1 }, "has length at least 1"],
    [{ type: ["string", "null"] }, "is a string or null"],
    [{ all: [] }, "is anything"],
    [
      {
        all: [
          { type: ["array"] },
          { max_length: 2 },
          { elements: { all: [{ type: ["string"] }, { in: ["a@x.com"] }] } },
        ],
      },
      "is a list and has length at most 2 and is a list whose every element (is a string and is in [a@x.com])",
    ],
    [{ fields: { a: { eq: 1 }, b: { all: [] } } }, "is an object with only a is 1, b is anything"],
    [{ fields: {} }, "is an empty object"],
  ])("%j", (c, expected) => {
    expect(describeConstraint(c)).toBe(expected);
  });
});

describe("describeEffectConstraint", () => {
  it.each<[EffectConstraint, string]>([
    [{ op: "email.*", args: { to: { in: ["bob@example.com"] } } }, "every to of email.* is in [bob@example.com]"],
    [
      { op: "fs.write_file", args: { path: { under: "/home/u/Sandbox" } } },
      "every path of fs.write_file is under /home/u/Sandbox",
    ],
    [{ op: "email.send_*", count: { max: 3 } }, "at most 3 calls of email.send_*"],
    [{ op: "fs.write_file", count: { max: 0 } }, "no call of fs.write_file"],
    [{ op: "email.send_*", distinct: "to" }, "no value of to repeats across calls of email.send_*"],
    [{ op: "http.*" }, "any call of http.*"],
    [
      { op: "http.*", args: { url: { host_in: ["api.x.com"] } }, count: { max: 2 } },
      "every url of http.* has a host in [api.x.com]; at most 2 calls of http.*",
    ],
  ])("%j", (c, expected) => {
    expect(describeEffectConstraint(c)).toBe(expected);
  });
});
