import { describe, expect, it } from "vitest";
import { holds, holdsWithSources, satisfies } from "../../src/constraint/index.js";
import { withoutSources } from "../../src/constraint/sources.js";
import type { AbstractValue, Provenance } from "../../src/model/abstract.js";
import { decide } from "../../src/policy/decide.js";
import { explain } from "../../src/policy/explain.js";
import { effect, facts, list, mail, policyOf, shippedManifests, val } from "./helpers.js";

const set = shippedManifests();
const draft: Provenance = { source: "result of email.get_draft", untrusted: true, op: "email.get_draft" };
const listing: Provenance = { source: "result of fs.list_dir", untrusted: false, op: "fs.list_dir" };
const opaque: Provenance = { source: "a variable that may have changed", untrusted: true };
const fromDraft = (prefix = "", suffix = ""): AbstractValue => ({
  kind: "string",
  prefix,
  suffix,
  provenance: [draft],
});

describe("provenance conditions, statically", () => {
  it("untrusted = false is yes only when no source is untrusted; untrusted = true is never yes", () => {
    expect(holds({ untrusted: false }, val("bob@x.com"))).toBe("yes");
    expect(holds({ untrusted: true }, val("bob@x.com"))).toBe("no");
    expect(holds({ untrusted: false }, fromDraft())).toBe("maybe");
    expect(holds({ untrusted: true }, fromDraft())).toBe("maybe");
    expect(holds({ untrusted: false }, { kind: "unknown", provenance: [listing] })).toBe("yes");
    expect(holds({ not: { untrusted: true } }, list(fromDraft()))).toBe("maybe");
    expect(holds({ untrusted: false }, list(val("a@x.com")))).toBe("yes");
  });

  it("from names ops (globs too); a source of unknown origin may be any op", () => {
    expect(holds({ from: ["email.get_draft"] }, fromDraft())).toBe("maybe");
    expect(holds({ from: ["email.*"] }, fromDraft())).toBe("maybe");
    expect(holds({ from: ["http.get"] }, fromDraft())).toBe("no");
    expect(holds({ not: { from: ["http.get"] } }, fromDraft())).toBe("yes");
    expect(holds({ from: ["http.get"] }, { kind: "unknown", provenance: [opaque] })).toBe("maybe");
    expect(holds({ from: ["fs.list_dir"] }, { kind: "unknown", provenance: [listing] })).toBe("maybe");
  });

  it("mixed with value conditions, each way the sources may come out must agree", () => {
    const outside = { all: [{ untrusted: true }, { not: { prefix: "/home/me/Sandbox/" } }] };
    expect(holds(outside, fromDraft("/home/me/Sandbox/"))).toBe("no"); // inside whatever its source
    expect(holds(outside, fromDraft("/etc/"))).toBe("maybe");
    expect(holds(outside, val("/etc/passwd"))).toBe("no"); // the program's own path: not untrusted
    // Two open conditions that are not the same: "from a but not from b" may hold.
    const both: AbstractValue = {
      kind: "unknown",
      provenance: [draft, { ...draft, source: "result of http.get", op: "http.get" }],
    };
    expect(holds({ all: [{ from: ["email.get_draft"] }, { not: { from: ["http.get"] } }] }, both)).toBe("maybe");
  });

  it("the facts' sources decide, not the value a guarantee narrowed to constants", () => {
    expect(holdsWithSources({ untrusted: false }, val("me@example.com"), [draft])).toBe("maybe");
  });

  it("a guard has them replaced so that it refuses at least what the rule could deny", () => {
    const outside = { all: [{ untrusted: true }, { not: { under: "/home/me/Sandbox" } }] };
    expect(withoutSources(outside, [draft])).toEqual({ not: { under: "/home/me/Sandbox" } });
    // Decided (never untrusted): the guard lets every path through.
    expect(satisfies({ not: withoutSources(outside, []) }, "/etc/passwd")).toBe(true);
    // Under a `not`, an open condition counts as false: the guard of deny "not untrusted" refuses every call (a run cannot tell).
    expect(satisfies({ not: withoutSources({ not: { untrusted: true } }, [draft]) }, "x")).toBe(false);
    // Whatever stays, a run checks without sources: a provenance condition there would be false.
    expect(satisfies({ untrusted: false }, "x")).toBe(false);
  });
});

const policy = policyOf(`
default = "ask"

[[rules]]
id = "untrusted-path"
decision = "deny"
op = "fs.write_file"
when = { args = { path = { all = [{ untrusted = true }, { not = { under = "~/Sandbox" } }] } } }
reason = "a path from untrusted data stays in the sandbox"

[[rules]]
id = "mail-if-draft-says"
decision = "ask"
op = "email.send_email"
when = { influenced_by = { from = ["email.get_draft"] } }

[[rules]]
id = "mail-me"
decision = "allow"
op = "email.send_email"
when = { args = { to = { all = [{ in = ["me@example.com"] }, { untrusted = false }] } } }

[[rules]]
id = "write"
decision = "allow"
op = "fs.write_file"
`);

describe("provenance in decisions", () => {
  it("a deny on an untrusted path is a guard a run can check: the path must be in the sandbox", () => {
    const write = effect("fs.write_file", { path: fromDraft("/home/me/"), content: val("x") });
    const d = decide(facts([write]), policy, set);
    expect(d.kind).toBe("ask");
    expect(d.guards).toContainEqual({ op: "fs.write_file", args: { path: { under: "/home/me/Sandbox" } } });
  });

  it("the same path made by the program itself is not denied, and needs no guard", () => {
    const write = effect("fs.write_file", { path: val("/etc/motd"), content: val("x") });
    const d = decide(facts([write]), policy, set);
    expect(d.guards).toEqual([]);
    expect(d.effects[0]?.rule).not.toBe("untrusted-path");
  });

  it("an allow needing trusted recipients passes the program's own and holds back the draft's", () => {
    const own = { ...mail(list(val("me@example.com"))), sources: { to: [] }, influencedBy: [] };
    expect(decide(facts([own]), policy, set).kind).toBe("auto_approved");
    const copied = { ...mail(list(val("me@example.com"))), sources: { to: [draft] }, influencedBy: [] };
    expect(decide(facts([copied]), policy, set).kind).toBe("ask");
  });

  it("influenced_by sees control: mail sent only if the draft says so asks; an effect without it is unknown", () => {
    const influenced = { ...mail(list(val("me@example.com"))), sources: { to: [] }, influencedBy: [draft] };
    const d = decide(facts([influenced]), policy, set);
    expect(d.kind).toBe("ask");
    expect(d.effects[0]?.rule).toBe("mail-if-draft-says");
    const unknownControl = mail(list(val("me@example.com")));
    expect(decide(facts([unknownControl]), policy, set).kind).toBe("ask");
    const clean = { ...mail(list(val("me@example.com"))), sources: { to: [] }, influencedBy: [listing] };
    expect(decide(facts([clean]), policy, set).kind).toBe("auto_approved");
  });

  it("explain shows each argument's sources and what influenced the call", () => {
    const copied = {
      ...mail(list(fromDraft())),
      sources: { to: [draft], subject: [], body: [] },
      influencedBy: [draft],
    };
    const e = explain(facts([copied]), policy, set).effects[0]!;
    expect(e.sources).toEqual({
      to: "the result of email.get_draft — untrusted",
      subject: "the program's own values",
      body: "the program's own values",
    });
    expect(e.influencedBy).toBe(
      "whether it runs, how often and with which values may depend on the result of email.get_draft — untrusted",
    );
    expect(e.rules.find((r) => r.id === "mail-me")?.why).toMatch(
      /comes from the result of email.get_draft — untrusted/,
    );
  });

  it("a rule's influenced_by takes provenance conditions only", () => {
    expect(() =>
      policyOf(`
[[rules]]
id = "bad"
decision = "ask"
op = "email.send_email"
when = { influenced_by = { eq = "x" } }
`),
    ).toThrow(/influenced_by takes provenance conditions only/);
  });
});
