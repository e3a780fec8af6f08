import { describe, expect, it } from "vitest";
import { describeArgument, describeCount, describeValue } from "../../src/constraint/index.js";
import type { AbstractValue } from "../../src/model/abstract.js";

const untrusted = [{ source: "result of email.get_draft", untrusted: true }];

describe("describeValue: one description of abstract values, for facts and decisions", () => {
  it.each<[AbstractValue, string, string]>([
    [{ kind: "const", values: ["bob@example.com"] }, '"bob@example.com"', '= "bob@example.com"'],
    [{ kind: "const", values: ["a", 1, null] }, 'one of "a", 1, null', 'is one of "a", 1, null'],
    [{ kind: "string", prefix: "/home/", suffix: ".txt", provenance: [] }, 'a string starting "/home/" and ending ".txt"', 'is a string starting "/home/" and ending ".txt"'],
    [{ kind: "string", prefix: "", suffix: "", provenance: untrusted }, "any string (from result of email.get_draft, untrusted)", "is any string (from result of email.get_draft, untrusted)"],
    [{ kind: "array", element: { kind: "const", values: ["a@x.com"] }, length: { min: 1, max: 1 } }, 'a list of 1 item, each "a@x.com"', 'is a list of 1 item, each "a@x.com"'],
    [{ kind: "array", element: { kind: "unknown", provenance: [{ source: "loop variable", untrusted: false }] }, length: { min: 0, max: null } }, "a list of 0 or more items, each unknown (from loop variable)", "is a list of 0 or more items, each unknown (from loop variable)"],
    [{ kind: "record", fields: { a: { kind: "const", values: [1] } } }, "{ a: 1 }", "is { a: 1 }"],
    [{ kind: "unknown", provenance: [] }, "unknown", "is unknown"],
  ])("%j", (v, noun, predicate) => {
    expect(describeValue(v)).toBe(noun);
    expect(describeArgument(v)).toBe(predicate);
  });

  it("counts", () => {
    expect([describeCount({ min: 2, max: 2 }), describeCount({ min: 0, max: 3 }), describeCount({ min: 1, max: null })]).toEqual(["2", "0..3", "1 or more"]);
  });
});
