import { describe, expect, it } from "vitest";
import { holdsEffect, satisfiesCall } from "../../src/constraint/index.js";
import type { AbstractValue, CountRange } from "../../src/model/abstract.js";
import type { EffectConstraint } from "../../src/model/constraint.js";
import type { Json } from "../../src/model/json.js";
import { effect, manifests } from "./effects.js";

const c = (...values: Json[]): AbstractValue => ({ kind: "const", values });
const list = (element: AbstractValue, min: number, max: number | null): AbstractValue => ({
  kind: "array",
  element,
  length: { min, max },
});
const unknown: AbstractValue = {
  kind: "unknown",
  provenance: [{ source: "result of email.get_draft", untrusted: true }],
};
const once = { min: 1, max: 1 };
const recipientsOnly: EffectConstraint = { op: "email.*", args: { to: { in: ["bob@example.com"] } } };

describe("holdsEffect: arguments", () => {
  it("proves recipientsOnly when every recipient is Bob", () => {
    const r = holdsEffect(
      recipientsOnly,
      [effect("email.send_email", { to: c(["bob@example.com"]), subject: c("hi") })],
      manifests,
    );
    expect(r.verdict).toBe("yes");
    expect(r.why).toBe("every to is in [bob@example.com]");
  });

  it("refutes it at the first offending call, naming the recipient", () => {
    const good = effect("email.send_email", { to: c(["bob@example.com"]), subject: c("hi") });
    const bad = effect("email.send_email", { to: c(["bob@example.com", "eve@evil.com"]), subject: c("hi") });
    const r = holdsEffect(recipientsOnly, [good, bad], manifests);
    expect(r).toEqual({
      verdict: "no",
      site: bad.site,
      why: `email.send_email at ${bad.site.line}:3: to is in [bob@example.com] fails ("eve@evil.com")`,
      offending: { op: "email.send_email", input: "to", value: "eve@evil.com" },
    });
  });

  it("a breaking call that may not run is maybe", () => {
    const r = holdsEffect(
      recipientsOnly,
      [effect("email.send_email", { to: c(["eve@evil.com"]) }, { min: 0, max: 1 })],
      manifests,
    );
    expect(r.verdict).toBe("maybe");
    expect(r.site).toBeUndefined();
  });

  it("a call that never runs does not count", () => {
    expect(
      holdsEffect(
        recipientsOnly,
        [effect("email.send_email", { to: c(["eve@evil.com"]) }, { min: 0, max: 0 })],
        manifests,
      ).verdict,
    ).toBe("yes");
  });

  it("unknown recipients are maybe (enforced at run time)", () => {
    expect(holdsEffect(recipientsOnly, [effect("email.send_email", { to: unknown })], manifests).verdict).toBe("maybe");
  });

  it("a read without the input is not concerned", () => {
    const r = holdsEffect(recipientsOnly, [effect("email.get_draft", { id: c("d1") })], manifests);
    expect(r.verdict).toBe("yes");
  });

  it("send_draft has no recipients to check: maybe, and refused at run time", () => {
    const e = effect("email.send_draft", { draft_id: c("d1") });
    const r = holdsEffect(recipientsOnly, [e], manifests);
    expect(r.verdict).toBe("maybe");
    expect(r.why).toBe(
      `email.send_draft at ${e.site.line}:3 has no to argument to check, so its calls are refused at run time`,
    );
    expect(satisfiesCall(recipientsOnly, { op: "email.send_draft", args: { draft_id: "d1" } }, [], manifests)).toBe(
      false,
    );
  });

  it("send_draft whose wrapper resolves `to` ([resolve]): maybe, checked at every call on the value the wrapper read", () => {
    const resolving = { ...manifests, resolvedOf: (op: string) => (op === "email.send_draft" ? ["to"] : []) };
    const e = effect("email.send_draft", { draft_id: c("d1") });
    const r = holdsEffect(recipientsOnly, [e], resolving);
    expect(r.verdict).toBe("maybe");
    expect(r.why).toBe(
      `email.send_draft at ${e.site.line}:3: to is read by the trusted wrapper before each call and checked then`,
    );
    expect(holdsEffect({ op: "email.send_*", distinct: "to" }, [e], resolving).verdict).toBe("maybe");
    expect(
      satisfiesCall(
        recipientsOnly,
        { op: "email.send_draft", args: { draft_id: "d1", to: ["bob@example.com"] } },
        [],
        resolving,
      ),
    ).toBe(true);
    expect(
      satisfiesCall(
        recipientsOnly,
        { op: "email.send_draft", args: { draft_id: "d1", to: ["eve@evil.com"] } },
        [],
        resolving,
      ),
    ).toBe(false);
    // Not resolved (a caller that skipped the read): refused, never passed.
    expect(satisfiesCall(recipientsOnly, { op: "email.send_draft", args: { draft_id: "d1" } }, [], resolving)).toBe(
      false,
    );
  });

  it("without manifest facts a missing input is unchecked even for a read", () => {
    expect(holdsEffect(recipientsOnly, [effect("email.get_draft", { id: c("d1") })]).verdict).toBe("maybe");
    expect(satisfiesCall(recipientsOnly, { op: "email.get_draft", args: { id: "d1" } }, [])).toBe(false);
  });

  it("a declared input left out is null", () => {
    const subjectSet: EffectConstraint = { op: "email.send_email", args: { subject: { in: ["hi"] } } };
    expect(
      holdsEffect(subjectSet, [effect("email.send_email", { to: c(["bob@example.com"]) })], manifests).verdict,
    ).toBe("no");
    expect(
      holdsEffect(
        { op: "email.send_email", args: { subject: { in: ["hi", null] } } },
        [effect("email.send_email", { to: c([]) })],
        manifests,
      ).verdict,
    ).toBe("yes");
    expect(satisfiesCall(subjectSet, { op: "email.send_email", args: { to: [] } }, [], manifests)).toBe(false);
  });

  it("ops the pattern does not select are ignored", () => {
    const writesUnder: EffectConstraint = { op: "fs.write_file", args: { path: { under: "/home/u/Sandbox" } } };
    expect(holdsEffect(writesUnder, [effect("email.send_email", { to: c(["x"]) })], manifests)).toEqual({
      verdict: "yes",
      why: "the program makes no fs.write_file call",
    });
  });
});

describe("holdsEffect: no conditions", () => {
  it("an empty args object constrains nothing", () => {
    expect(holdsEffect({ op: "email.*", args: {} }, [effect("email.send_email", { to: c(["a"]) })], manifests)).toEqual(
      { verdict: "yes", why: "every email.* call" },
    );
  });
});

describe("holdsEffect: count", () => {
  const atMost2: EffectConstraint = { op: "email.send_*", count: { max: 2 } };
  it.each([
    ["within the bound", [once, once], "yes"],
    ["bound exceeded for sure", [once, { min: 2, max: 2 }], "no"],
    ["may exceed", [once, { min: 0, max: 3 }], "maybe"],
    ["unbounded loop", [{ min: 0, max: null }], "maybe"],
    ["unbounded loop that surely exceeds", [{ min: 3, max: null }], "no"],
    ["nothing", [], "yes"],
  ] as const)("%s", (_name, counts, expected) => {
    const effects = counts.map((count) => effect("email.send_email", { to: c(["a"]) }, count));
    expect(holdsEffect(atMost2, effects, manifests).verdict).toBe(expected);
  });

  it("reports the call that pushes the total over", () => {
    const a = effect("email.send_email", { to: c(["a"]) });
    const b = effect("email.send_draft", { draft_id: c("d") }, { min: 2, max: 2 });
    const r = holdsEffect(atMost2, [a, b, effect("email.send_email", { to: c(["a"]) })], manifests);
    expect(r.verdict).toBe("no");
    expect(r.site).toEqual(b.site);
    expect(r.offending).toEqual({ op: "email.send_draft" });
  });

  it("noWrites: no write at all", () => {
    expect(
      holdsEffect({ op: "fs.write_file", count: { max: 0 } }, [
        effect("fs.write_file", { path: c("/a"), content: c("") }, { min: 0, max: 1 }),
      ]).verdict,
    ).toBe("maybe");
    expect(
      holdsEffect({ op: "fs.write_file", count: { max: 0 } }, [effect("email.send_email", { to: c([]) })]).verdict,
    ).toBe("yes");
  });
});

describe("holdsEffect: distinct", () => {
  const unique: EffectConstraint = { op: "email.send_*", distinct: "to" };
  const send = (to: AbstractValue, count: CountRange = once) =>
    effect("email.send_email", { to, subject: c("s") }, count);
  it.each([
    ["one call", [send(c(["a", "b"]))], "yes"],
    ["two calls, disjoint constants", [send(c(["a"])), send(c(["b"], ["c"]))], "yes"],
    ["two calls sharing a constant", [send(c(["a"])), send(c(["a", "b"]))], "no"],
    ["two calls that may share", [send(c(["a"])), send(c(["a"], ["b"]))], "maybe"],
    ["a repeat inside one call", [send(c(["a", "a"]))], "no"],
    ["a call that runs twice with the same recipient", [send(c(["a"]), { min: 2, max: 2 })], "no"],
    ["a call in a loop with unknown recipients", [send(list(unknown, 1, 1), { min: 0, max: null })], "maybe"],
    ["unknown recipients, once: the list may repeat one", [send(unknown)], "maybe"],
    ["a list of one unknown recipient, once", [send(list(unknown, 0, 1))], "yes"],
    ["a list of unknown recipients, once", [send(list(unknown, 0, 2))], "maybe"],
    ["pigeonhole: three elements from two addresses", [send(list(c("a", "b"), 3, 3))], "no"],
    ["a list of one constant, twice", [send(list(c("a"), 1, 1), { min: 2, max: 2 })], "no"],
    ["a call that may not run", [send(c(["a"])), send(c(["a"]), { min: 0, max: 1 })], "maybe"],
    ["null entries are not values", [send(c(["a", null, null]))], "yes"],
    ["a send_draft cannot be checked", [effect("email.send_draft", { draft_id: c("d") })], "maybe"],
  ] as const)("%s", (_name, effects, expected) => {
    expect(holdsEffect(unique, [...effects], manifests).verdict).toBe(expected);
  });
});

describe("satisfiesCall", () => {
  const call = (op: string, args: Record<string, Json>) => ({ op, args });
  it("checks arguments of selected calls only", () => {
    expect(satisfiesCall(recipientsOnly, call("email.send_email", { to: ["bob@example.com"] }), [], manifests)).toBe(
      true,
    );
    expect(
      satisfiesCall(
        recipientsOnly,
        call("email.send_email", { to: ["bob@example.com", "eve@evil.com"] }),
        [],
        manifests,
      ),
    ).toBe(false);
    expect(satisfiesCall(recipientsOnly, call("fs.write_file", { path: "/x" }), [], manifests)).toBe(true);
  });

  it("counts this call with the history", () => {
    const atMost1: EffectConstraint = { op: "email.send_*", count: { max: 1 } };
    const sent = call("email.send_email", { to: ["a"] });
    expect(satisfiesCall(atMost1, sent, [], manifests)).toBe(true);
    expect(satisfiesCall(atMost1, sent, [call("email.get_draft", { id: "d" })], manifests)).toBe(true);
    expect(satisfiesCall(atMost1, sent, [sent], manifests)).toBe(false);
    expect(satisfiesCall({ op: "fs.*", count: { max: 0 } }, call("fs.write_file", { path: "/a" }), [])).toBe(false);
  });

  it("distinct across history and within the call, deep equality", () => {
    const unique: EffectConstraint = { op: "email.send_*", distinct: "to" };
    expect(
      satisfiesCall(
        unique,
        call("email.send_email", { to: ["a", "b"] }),
        [call("email.send_email", { to: ["c"] })],
        manifests,
      ),
    ).toBe(true);
    expect(
      satisfiesCall(
        unique,
        call("email.send_email", { to: ["a", "b"] }),
        [call("email.send_email", { to: ["b"] })],
        manifests,
      ),
    ).toBe(false);
    expect(satisfiesCall(unique, call("email.send_email", { to: ["a", "a"] }), [], manifests)).toBe(false);
    expect(
      satisfiesCall({ op: "x.y", distinct: "v" }, call("x.y", { v: { a: 1, b: 2 } }), [
        call("x.y", { v: { b: 2, a: 1 } }),
      ]),
    ).toBe(false);
    expect(
      satisfiesCall(
        unique,
        call("email.send_email", { to: ["a"] }),
        [call("email.draft_email", { to: ["a"] })],
        manifests,
      ),
    ).toBe(true);
  });

  it("an argument named like an Object.prototype member is not found there", () => {
    const c1: EffectConstraint = { op: "x.y", args: { constructor: { eq: "v" } } };
    expect(satisfiesCall(c1, call("x.y", {}), [])).toBe(false);
    expect(satisfiesCall(c1, call("x.y", { constructor: "v" }), [])).toBe(true);
  });

  it("argument values that look like internal markers are plain values", () => {
    const c1: EffectConstraint = { op: "x.y", args: { v: { eq: "ok" } } };
    expect(satisfiesCall(c1, call("x.y", { v: "skip" }), [])).toBe(false);
    expect(satisfiesCall(c1, call("x.y", { v: "missing" }), [])).toBe(false);
  });
});
