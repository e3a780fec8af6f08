import { describe, expect, it } from "vitest";
import { valueNote } from "../../src/mcp/run-tool.js";
import { handlesIn } from "../../src/model/index.js";

const held = { $handle: "h_1", type: "string", length: 12, from: ["email.get_draft"] };

describe("value_note on quarantined parts", () => {
  it("tells the agent plainly how to pass a handle to its next program", () => {
    const note = valueNote([{ path: "$.body", from: ["email.get_draft"], untrusted: true }], { count: 1, body: held });
    expect(note).toMatch(/Untrusted data in value: \$\.body \(from email\.get_draft\)/);
    expect(note).toMatch(/Quarantined parts \(h_1\)/);
    expect(note).toContain('await fromHandle("h_1")');
    expect(note).toMatch(/string literal/);
  });

  it("says nothing of handles when the value holds none", () => {
    expect(valueNote([{ path: "$", from: [], untrusted: false }], "plain")).toBe(
      "Every part of value is the program's own data or trusted.",
    );
  });

  it("finds descriptions at any depth, once each; an object that only looks like one is not one", () => {
    expect(handlesIn([held, { nested: [held, { ...held, $handle: "h_2" }] }])).toEqual(["h_1", "h_2"]);
    expect(handlesIn({ $handle: "h_1", type: "string" })).toEqual([]);
    expect(handlesIn({ $handle: "not a handle", type: "string", length: 1, from: [] })).toEqual([]);
  });
});
