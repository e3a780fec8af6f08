// Mailboxes: every spelling of an address that reaches the same mailbox matches `mailbox_in` and
// `mailbox_glob`, at run time and statically alike, and the static check is sound on partly known
// strings (an attacker controls the unknown middle).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { holds, implies, satisfies } from "../../src/constraint/index.js";
import { mailboxOf } from "../../src/constraint/email-address.js";
import { ValueConstraint } from "../../src/model/constraint.js";

describe("mailboxOf", () => {
  it("drops case, a trailing dot and a +subaddress; at Gmail dots too, googlemail.com is gmail.com", () => {
    expect(mailboxOf("CEO+tag@Example.COM.")).toBe("ceo@example.com");
    expect(mailboxOf("ceo+a+b@example.com")).toBe("ceo@example.com");
    expect(mailboxOf("c.e.o@example.com")).toBe("c.e.o@example.com"); // dots matter outside Gmail
    expect(mailboxOf("C.E.O+x@googlemail.com")).toBe("ceo@gmail.com");
    expect(mailboxOf("c.e.o@gmail.com.")).toBe("ceo@gmail.com");
  });

  it("a string that is no plain address is its own mailbox: no + is dropped from a quoted or doubled local part", () => {
    expect(mailboxOf('"ceo+x"@example.com')).toBe('"ceo+x"@example.com');
    expect(mailboxOf("a+b@c@example.com")).toBe("a+b@c@example.com");
  });
});

describe("mailbox_in and mailbox_glob at run time", () => {
  it("mailbox_in catches every spelling of the mailbox, and nothing else", () => {
    const c: ValueConstraint = { mailbox_in: ["ceo@example.com"] };
    for (const v of [
      "ceo@example.com",
      "CEO+x@example.com",
      "ceo+@EXAMPLE.com.",
      ["ceo+1@example.com", "CEO@example.com"],
    ])
      expect(satisfies(c, v)).toBe(true);
    for (const v of ["ceo@example.org", "ceox@example.com", "c.eo@example.com", "bob@example.com"])
      expect(satisfies(c, v)).toBe(false);
    expect(satisfies({ mailbox_in: ["ceo+board@example.com"] }, "ceo@example.com")).toBe(true); // a listed tag names the same mailbox
    expect(satisfies({ mailbox_in: ["ceo@gmail.com"] }, "C.E.O+x@googlemail.com")).toBe(true);
  });

  it("mailbox_glob: the pattern on the canonical form or on the mailbox", () => {
    expect(satisfies({ mailbox_glob: "*@rival.com" }, "x+y@RIVAL.com.")).toBe(true);
    expect(satisfies({ mailbox_glob: "ceo@*" }, "ceo+x@other.org")).toBe(true);
    expect(satisfies({ mailbox_glob: "ceo@*" }, "c.e.o@gmail.com")).toBe(true);
    expect(satisfies({ mailbox_glob: "*@gmail.com" }, "x@googlemail.com")).toBe(true);
    expect(satisfies({ mailbox_glob: "*@googlemail.com" }, "x@gmail.com")).toBe(true);
    expect(satisfies({ mailbox_glob: "ceo@*" }, "ceox@other.org")).toBe(false);
    expect(satisfies({ mailbox_glob: "*@rival.com" }, "x@rival.com.evil.org")).toBe(false);
  });

  it("the schema takes them and refuses an operand that is no address; implies knows them", () => {
    expect(ValueConstraint.safeParse({ mailbox_in: ["a@b.com"] }).success).toBe(true);
    expect(ValueConstraint.safeParse({ mailbox_in: ["ab.com"] }).success).toBe(false);
    expect(ValueConstraint.safeParse({ mailbox_glob: "*" }).success).toBe(false);
    expect(implies({ in: ["ceo+x@example.com"] }, { mailbox_in: ["CEO@example.com"] })).toBe(true);
    expect(implies({ not: { mailbox_in: ["ceo@example.com"] } }, { not: { in: ["ceo+x@example.com"] } })).toBe(true);
    expect(implies({ in: ["ceo@example.org"] }, { mailbox_in: ["ceo@example.com"] })).toBe(false);
  });
});

describe("the static check is sound for mailbox conditions", () => {
  const piece = fc.constantFrom(
    "c",
    "e",
    "o",
    ".",
    "+",
    "x",
    "@",
    "example.com",
    "gmail.com",
    "googlemail.com",
    "GMail.com.",
    "E",
    '"',
    "*",
    "",
  );
  const text = fc.array(piece, { maxLength: 5 }).map((p) => p.join(""));
  const constraint = fc.oneof(
    fc
      .constantFrom("ceo@example.com", "c.eo@gmail.com", "ceo+x@googlemail.com", "x@e")
      .map((a): ValueConstraint => ({ mailbox_in: [a] })),
    fc
      .constantFrom("ceo@*", "*@example.com", "*@gmail.com", "c?o@*", "*e*@*.com", "ceo+*@example.com")
      .map((g): ValueConstraint => ({ mailbox_glob: g })),
  );

  it("yes holds for every member of a partly known string, no for none", () => {
    fc.assert(
      fc.property(constraint, text, text, text, (c, prefix, middle, suffix) => {
        const verdict = holds(c, { kind: "string", prefix, suffix, provenance: [] });
        const member = satisfies(c, prefix + middle + suffix);
        if (verdict === "yes") expect(member).toBe(true);
        if (verdict === "no") expect(member).toBe(false);
      }),
      { numRuns: 5000, seed: 20261127 },
    );
  });

  it("still says no where no spelling can reach the mailbox", () => {
    expect(
      holds({ mailbox_in: ["ceo@rival.com"] }, { kind: "string", prefix: "", suffix: "@example.com", provenance: [] }),
    ).toBe("no");
    expect(
      holds({ mailbox_glob: "*@rival.com" }, { kind: "string", prefix: "", suffix: "@example.com", provenance: [] }),
    ).toBe("no");
    expect(
      holds(
        { mailbox_in: ["ceo@rival.com"] },
        { kind: "string", prefix: "ceo+", suffix: "@rival.com", provenance: [] },
      ),
    ).toBe("maybe");
    expect(
      holds({ mailbox_glob: "*@rival.com" }, { kind: "string", prefix: "", suffix: "@Rival.com", provenance: [] }),
    ).toBe("yes");
  });
});
