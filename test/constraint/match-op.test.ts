import { describe, expect, it } from "vitest";
import { matchOp } from "../../src/constraint/index.js";

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
