import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { describeConstraint, holds, narrow, satisfies } from "../../src/constraint/index.js";
import { ValueConstraint } from "../../src/model/index.js";
import type { AbstractValue } from "../../src/model/index.js";

const digest = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
const body = "Hello Bob,\nthe figures are attached.\n— Ana";
const bound: ValueConstraint = { sha256: [digest(body)] };

describe("the sha256 constraint: a text bound by its digest", () => {
  it("holds of exactly the text hashed, byte for byte", () => {
    expect(satisfies(bound, body)).toBe(true);
    for (const other of [
      body + " ",
      body.toUpperCase(),
      body.replace("—", "-"),
      "",
      body.normalize("NFD") === body ? body + "\u200b" : body.normalize("NFD"),
    ]) {
      expect(satisfies(bound, other)).toBe(false);
    }
  });

  it("looks at the value itself: a list, even of the text, or a non-string fails", () => {
    expect(satisfies(bound, [body])).toBe(false);
    expect(satisfies(bound, [])).toBe(false);
    expect(satisfies(bound, null)).toBe(false);
    expect(satisfies(bound, { body })).toBe(false);
  });

  it("is unknown statically unless the value is constant", () => {
    const constant: AbstractValue = { kind: "const", values: [body] };
    const partly: AbstractValue = { kind: "string", prefix: "Hello", suffix: "", provenance: [] };
    expect(holds(bound, constant)).toBe("yes");
    expect(holds(bound, { kind: "const", values: ["other"] })).toBe("no");
    expect(holds(bound, partly)).toBe("maybe");
    expect(holds(bound, { kind: "unknown", provenance: [] } as AbstractValue)).toBe("maybe");
    expect(holds(bound, { kind: "array", element: constant, length: { min: 0, max: 1 } })).toBe("no");
    expect(narrow(partly, bound)).toEqual(partly);
  });

  it("parses only lower-case hex digests, and says what it binds", () => {
    expect(ValueConstraint.safeParse({ sha256: [digest(body)] }).success).toBe(true);
    expect(ValueConstraint.safeParse({ sha256: [digest(body).toUpperCase()] }).success).toBe(false);
    expect(ValueConstraint.safeParse({ sha256: [] }).success).toBe(false);
    expect(describeConstraint(bound)).toBe(`is the text with SHA-256 ${digest(body)}`);
  });
});
