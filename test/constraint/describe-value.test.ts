import { describe, expect, it } from "vitest";
import {
  describeArgument,
  describeCount,
  describeInfluence,
  describeSources,
  describeValue,
} from "../../src/constraint/index.js";
import type { AbstractValue, Provenance } from "../../src/model/abstract.js";

const draft: Provenance = { source: "result of email.get_draft", untrusted: true, op: "email.get_draft" };
const untrusted = [draft];

describe("describeValue: one description of abstract values, for facts and decisions", () => {
  it.each<[AbstractValue, string, string]>([
    [{ kind: "const", values: ["bob@example.com"] }, '"bob@example.com"', '= "bob@example.com"'],
    [{ kind: "const", values: ["a", 1, null] }, 'one of "a", 1, null', 'is one of "a", 1, null'],
    [
      { kind: "string", prefix: "/home/", suffix: ".txt", provenance: [] },
      'a string starting "/home/" and ending ".txt"',
      'is a string starting "/home/" and ending ".txt"',
    ],
    [
      { kind: "string", prefix: "", suffix: "", provenance: untrusted },
      "any string (from the result of email.get_draft — untrusted)",
      "is any string (from the result of email.get_draft — untrusted)",
    ],
    [
      { kind: "array", element: { kind: "const", values: ["a@x.com"] }, length: { min: 1, max: 1 } },
      'a list of 1 item, each "a@x.com"',
      'is a list of 1 item, each "a@x.com"',
    ],
    [
      {
        kind: "array",
        element: { kind: "unknown", provenance: [{ source: "loop variable", untrusted: false }] },
        length: { min: 0, max: null },
      },
      "a list of 0 or more items, each unknown (from loop variable)",
      "is a list of 0 or more items, each unknown (from loop variable)",
    ],
    [{ kind: "record", fields: { a: { kind: "const", values: [1] } } }, "{ a: 1 }", "is { a: 1 }"],
    [{ kind: "unknown", provenance: [] }, "unknown", "is unknown"],
  ])("%j", (v, noun, predicate) => {
    expect(describeValue(v)).toBe(noun);
    expect(describeArgument(v)).toBe(predicate);
  });

  it("counts", () => {
    expect([
      describeCount({ min: 2, max: 2 }),
      describeCount({ min: 0, max: 3 }),
      describeCount({ min: 1, max: null }),
    ]).toEqual(["2", "0..3", "1 or more"]);
  });
});

describe("describeSources: the one wording of where a value comes from", () => {
  const listing: Provenance = { source: "result of fs.list_dir", untrusted: false, op: "fs.list_dir" };
  const opaque: Provenance = { source: "a variable that may have changed", untrusted: true };
  const loop: Provenance = { source: "loop variable", untrusted: false };
  const getDraft = (id: string) => ({
    op: "email.get_draft",
    args: { id: { kind: "const", values: [id] } as AbstractValue },
  });

  it("says none when there is no source, and marks each untrusted one, those first, each once", () => {
    expect(describeSources([], "the program's own values")).toBe("the program's own values");
    expect(describeSources([loop, listing, draft, opaque, draft], "")).toBe(
      "the result of email.get_draft — untrusted; a variable that may have changed — untrusted; loop variable; the result of fs.list_dir",
    );
  });

  it("names what the program's calls of a source's op read: which draft", () => {
    expect(describeSources([draft], "", [getDraft("r-1")])).toBe(
      'the result of email.get_draft (id = "r-1") — untrusted',
    );
    expect(describeSources([draft], "", [getDraft("r-1"), getDraft("r-2"), getDraft("r-1")])).toBe(
      'the result of email.get_draft (id = "r-1" or id = "r-2") — untrusted',
    );
    expect(describeSources([draft], "", ["a", "b", "c", "d"].map(getDraft))).toBe(
      'the result of email.get_draft (id = "a" or id = "b" or id = "c" or …) — untrusted',
    );
    const long = describeSources([draft], "", [getDraft("x".repeat(200))]);
    expect(long).toBe(`the result of email.get_draft (id = "${"x".repeat(73)}…) — untrusted`);
  });

  it("words an agent action's result as one source: the action, and the ops its steps call", () => {
    const relay: Provenance[] = [
      { source: "result of agent.relay", untrusted: true, op: "agent.relay" },
      { source: "result of http.get, a step of agent.relay", untrusted: true, op: "http.get" },
      { source: "result of http.post, a step of agent.relay", untrusted: true, op: "http.post" },
    ];
    const steps = [
      { op: "http.get", args: { url: { kind: "const", values: ["https://x.example/a"] } as AbstractValue } },
    ];
    expect(describeSources(relay, "", steps)).toBe(
      'the result of agent.relay, which may hold what its steps got back: http.get (url = "https://x.example/a"), http.post — untrusted',
    );
    // The mark follows every step folded in, even were the action's own result trusted.
    expect(
      describeSources(
        [{ ...relay[0]!, untrusted: false }, ...relay.slice(1), { source: "loop variable", untrusted: false }],
        "",
      ),
    ).toBe(
      "the result of agent.relay, which may hold what its steps got back: http.get, http.post — untrusted; loop variable",
    );
    // A step's result without its action's own source is worded by its op alone.
    expect(describeSources(relay.slice(1, 2), "")).toBe("the result of http.get — untrusted");
  });

  it("describeInfluence: what may steer a call, nothing, or not known", () => {
    expect(describeInfluence([draft], [getDraft("r-1")])).toBe(
      'whether it runs, how often and with which values may depend on the result of email.get_draft (id = "r-1") — untrusted',
    );
    expect(describeInfluence([])).toBeNull();
    expect(describeInfluence(undefined)).toMatch(/^not known: .* untrusted data$/);
  });
});

describe("describeSources: a part of a result, and the policy entry that trusted it", () => {
  const bank: Provenance = {
    source: "result of http.get",
    untrusted: true,
    op: "http.get",
    path: "$.body.iban",
    host: "api.bank.example",
  };
  const url: AbstractValue = { kind: "const", values: ["https://api.bank.example/p"] };
  const calls = [{ op: "http.get", args: { url } }];

  it("names the field read, after what the call read", () => {
    expect(describeSources([bank], "", calls)).toBe(
      'the result of http.get (url = "https://api.bank.example/p"), field $.body.iban — untrusted',
    );
    expect(describeSources([{ ...bank, path: "$" }], "")).toBe("the result of http.get — untrusted");
  });

  it("names the entry that trusted it, and never for a source still untrusted", () => {
    const entry = '[[trusted]] op = "http.get", host = "api.bank.example"';
    expect(describeSources([{ ...bank, untrusted: false, trustedBy: entry }], "")).toBe(
      `the result of http.get, field $.body.iban — trusted by the policy's ${entry}`,
    );
    expect(describeSources([{ ...bank, trustedBy: entry }], "")).toBe(
      "the result of http.get, field $.body.iban — untrusted",
    );
  });
});
