import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { matchOp } from "../../src/constraint/index.js";
import { wildcardMatch } from "../../src/constraint/wildcard.js";

describe("matchOp", () => {
  it.each([
    ["*", "email.send_email", true],
    ["*", "fs.write_file", true],
    ["email.send_email", "email.send_email", true],
    ["email.send_email", "email.send_draft", false],
    ["email.*", "email.get_draft", true],
    ["email.*", "fs.write_file", false],
    ["email.send_*", "email.send_draft", true],
    ["email.send_*", "email.send_email", true],
    ["email.send_*", "email.draft_email", false],
    ["email.*_draft", "email.send_draft", true],
    ["email.*", "emailx.send", false],
    ["email.*", "emai.send", false],
    ["e*.send_email", "email.send_email", false],
    ["Email.send_email", "email.send_email", false],
    ["email.send_email", "email.send_emailx", false],
    ["email.*", "email", false],
    ["email.*", "email.", true],
  ])("%s selects %s: %s", (pattern, op, expected) => {
    expect(matchOp(pattern, op)).toBe(expected);
  });
});

describe("matchOp against its definition", () => {
  // The connector parts equal, the action part a glob over the op's: as written before its fast paths.
  function reference(pattern: string, op: string): boolean {
    if (pattern === "*") return true;
    const p = pattern.indexOf(".");
    const o = op.indexOf(".");
    if (p < 0 || o < 0 || pattern.slice(0, p) !== op.slice(0, o)) return false;
    return wildcardMatch(pattern.slice(p + 1), op.slice(o + 1));
  }
  const part = fc.string({ unit: fc.constantFrom("e", "m", ".", "*", "?", "_"), maxLength: 7 });

  it("agrees on patterns and ops made of dots, wildcards and letters", () => {
    fc.assert(
      fc.property(part, part, (pattern, op) => matchOp(pattern, op) === reference(pattern, op)),
      { numRuns: 5000 },
    );
    fc.assert(fc.property(part, (pattern) => matchOp(pattern, pattern) === reference(pattern, pattern)));
  });
});
