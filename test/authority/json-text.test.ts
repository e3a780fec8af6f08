import { describe, expect, it } from "vitest";
import { jsonText } from "../../src/authority/json-text.js";
import { deepFreeze } from "../../src/model/index.js";

describe("jsonText", () => {
  it("answers JSON.stringify's text", () => {
    const value = deepFreeze({ kind: "auto_approved", grants: [{ op: "fs.read", n: 1.5, s: 'q"\u2028' }], none: null });
    expect(jsonText(value)).toBe(JSON.stringify(value));
    expect(jsonText(value)).toBe(JSON.stringify(value)); // remembered, unchanged
  });

  it("never remembers a value that can still change", () => {
    const open = { kind: "ask", grants: [] as string[] };
    expect(jsonText(open)).toBe('{"kind":"ask","grants":[]}');
    open.grants.push("x");
    expect(jsonText(open)).toBe('{"kind":"ask","grants":["x"]}');
    const shallow = Object.freeze({ grants: ["a"] }); // frozen at the top only: its array can change
    expect(jsonText(shallow)).toBe('{"grants":["a"]}');
    shallow.grants.push("b");
    expect(jsonText(shallow)).toBe('{"grants":["a","b"]}');
  });
});
