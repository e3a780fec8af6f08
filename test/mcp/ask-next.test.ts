// What check_program tells the agent to do about a program a person would be asked about.
import { describe, expect, it } from "vitest";
import { askNext } from "../../src/mcp/check-tool.js";

const ask = (rule: string | null, reason: string, help: boolean, line = 3) => ({
  op: "email.send_email",
  line,
  rule,
  reason,
  guarantee_could_help: help,
});

describe("askNext", () => {
  it("names each asking rule with its reason and suggests a guarantee when one could let every call through", () => {
    const next = askNext({ asks: [ask(null, "no rule covers it; the policy default is ask", true)] });
    expect(next).toContain(
      "line 3 email.send_email: no rule allows it, the policy's default asks (no rule covers it; the policy default is ask)",
    );
    expect(next).toMatch(/could let it run without asking: add it and check again/);
  });

  it("says no guarantee would change it when some asked call cannot be helped, and suggests none", () => {
    const next = askNext({
      asks: [
        ask("email.untrusted-recipients", "the recipients come from untrusted data", false, 7),
        ask(null, "default", true, 9),
      ],
    });
    expect(next).toContain(
      'line 7 email.send_email: rule "email.untrusted-recipients" asks (the recipients come from untrusted data)',
    );
    expect(next).toContain("No guarantee the program could add would change this for email.send_email at line 7");
    expect(next).not.toMatch(/add it and check again/);
  });
});
