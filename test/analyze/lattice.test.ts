// The abstract values' own operations, where JavaScript's object semantics could bend them.
import { describe, expect, it } from "vitest";
import { callGlobal } from "../../src/analyze/domain/builtins.js";
import { asRecord, constant, join } from "../../src/analyze/domain/lattice.js";
import type { Json } from "../../src/model/json.js";

// A key named __proto__ that is the object's own (JSON.parse and computed keys make one).
const withProtoKey = JSON.parse('{"__proto__": "a@x.com", "b": "b@x.com"}') as Json;

describe("records with a key named __proto__", () => {
  it("read from a constant object keep it as a field, not a prototype", () => {
    const fields = asRecord(constant(withProtoKey))!;
    expect(Object.keys(fields)).toEqual(["__proto__", "b"]);
    expect(Object.getPrototypeOf(fields)).toBe(Object.prototype);
    expect(callGlobal("Object.keys", [constant(withProtoKey)])).toEqual(constant(["__proto__", "b"]));
  });

  it("joined with another such record keep it", () => {
    const other = constant(JSON.parse('{"__proto__": "c@y.org", "b": "b@x.com"}') as Json);
    const joined = join(
      { kind: "record", fields: asRecord(constant(withProtoKey))! },
      { kind: "record", fields: asRecord(other)! },
    );
    expect(joined.kind).toBe("record");
    expect(Object.keys((joined as { fields: object }).fields)).toEqual(["__proto__", "b"]);
  });
});
