import { describe, expect, it } from "vitest";
import { decide } from "../../src/policy/decide.js";
import { explain } from "../../src/policy/explain.js";
import { effect, facts, list, mail, policyOf, shippedManifests, str, unknown, val } from "./helpers.js";

const set = shippedManifests();
const SANDBOX = "/home/me/Sandbox";

const layered = policyOf(`
default = "ask"

[[rules]]
id = "no-evil"
decision = "deny"
op = "email.send_email"
when = { args = { to = { glob = "*@evil.com" } } }
reason = "never mail evil.com"

[[rules]]
id = "ask-bob"
decision = "ask"
op = "email.send_email"
when = { args = { to = { in = ["bob@example.com", "x@evil.com"] } } }

[[rules]]
id = "mail-all"
decision = "allow"
op = "email.send_email"
`);

describe("precedence: deny beats ask beats allow", () => {
  it("a deny rule that surely applies rejects the request, whatever else matches", () => {
    const d = decide(facts([mail(list(val("x@evil.com")))]), layered, set);
    expect(d.kind).toBe("auto_rejected");
    expect(d.effects[0]).toMatchObject({ rule: "no-evil", verdict: "deny" });
    expect(d.effects[0]?.why).toMatch(/never mail evil.com/);
    expect(d.grants).toEqual([]);
    expect(d.reason).toMatch(/^denied — email.send_email at line \d+: rule "no-evil"/);
  });

  it("a deny on a list argument fires when any element matches", () => {
    const d = decide(facts([mail(val(["amy@example.com", "x@evil.com"]))]), layered, set);
    expect(d.effects[0]).toMatchObject({ rule: "no-evil", verdict: "deny" });
  });

  it("an ask rule beats an allow rule", () => {
    const d = decide(facts([mail(list(val("bob@example.com")))]), layered, set);
    expect(d.kind).toBe("ask");
    expect(d.effects[0]).toMatchObject({ rule: "ask-bob", verdict: "ask" });
  });

  it("the allow rule decides when nothing stronger applies", () => {
    const d = decide(facts([mail(list(val("amy@example.com")))]), layered, set);
    expect(d.kind).toBe("auto_approved");
    expect(d.effects[0]).toMatchObject({ rule: "mail-all", verdict: "allow" });
  });

  it("one denied effect rejects the whole request; one ask makes it ask", () => {
    const deny = decide(facts([mail(list(val("amy@example.com"))), mail(list(val("x@evil.com")))]), layered, set);
    expect(deny.kind).toBe("auto_rejected");
    expect(deny.effects.map((e) => e.verdict)).toEqual(["allow", "deny"]);
    const ask = decide(facts([mail(list(val("amy@example.com"))), mail(list(val("bob@example.com")))]), layered, set);
    expect(ask.kind).toBe("ask");
    expect(ask.reason).toMatch(/^1 of 2 effects need a person/);
  });
});

describe("the policy default", () => {
  it("ask: an effect no rule covers is asked about, with no rule", () => {
    const d = decide(
      facts([effect("http.post", { url: val("https://api.example.com/x"), body: val("{}") })]),
      layered,
      set,
    );
    expect(d.kind).toBe("ask");
    expect(d.effects[0]).toMatchObject({
      rule: null,
      verdict: "ask",
      why: "no rule covers it; the policy default is ask",
    });
  });

  it("deny: an uncovered effect is rejected", () => {
    const strict = policyOf(`default = "deny"\n[[rules]]\nid = "reads"\ndecision = "allow"\nop = "fs.read_file"\n`);
    const d = decide(
      facts([effect("fs.read_file", { path: val("/a") }), effect("fs.list_dir", { path: val("/a") })]),
      strict,
      set,
    );
    expect(d.kind).toBe("auto_rejected");
    expect(d.effects.map((e) => [e.rule, e.verdict])).toEqual([
      ["reads", "allow"],
      [null, "deny"],
    ]);
  });

  it("a program without effects is approved", () => {
    expect(decide(facts([]), layered, set)).toMatchObject({
      kind: "auto_approved",
      reason: "the program has no effects",
      grants: [],
    });
  });
});

describe("globs and consequential actions", () => {
  const globs = policyOf(`
[[rules]]
id = "all-fs"
decision = "allow"
op = "fs.*"

[[rules]]
id = "all"
decision = "allow"
op = "*"
`);

  it("a glob allow covers ordinary actions", () => {
    const d = decide(
      facts([
        effect("fs.read_file", { path: val("/a") }),
        effect("http.post", { url: val("https://a.b/"), body: val("") }),
      ]),
      globs,
      set,
    );
    expect(d.kind).toBe("auto_approved");
    expect(d.effects.map((e) => e.rule)).toEqual(["all-fs", "all"]);
  });

  it("a glob allow never auto-passes an action whose manifest requires approval", () => {
    for (const e of [
      effect("fs.write_file", { path: val("/a"), content: val("x") }),
      mail(list(val("me@example.com"))),
      effect("email.send_draft", { draft_id: val("d1") }),
    ]) {
      const d = decide(facts([e]), globs, set);
      expect(d.kind).toBe("ask");
      expect(d.effects[0]?.rule).toBeNull();
      expect(d.effects[0]?.why).toMatch(
        new RegExp(`only a rule naming ${e.op.replace(".", "\\.")} exactly can auto-pass it`),
      );
    }
  });

  it("a glob allow falls to the floor (ask), not to a deny default", () => {
    const strict = policyOf(`default = "deny"\n[[rules]]\nid = "mail"\ndecision = "allow"\nop = "email.*"\n`);
    expect(decide(facts([mail(list(val("a@b.c")))]), strict, set).kind).toBe("ask");
  });

  it("an allow rule naming the action exactly lifts the floor", () => {
    const exact = policyOf(
      `[[rules]]\nid = "w"\ndecision = "allow"\nop = "fs.write_file"\nwhen = { args = { path = { under = "~/Sandbox" } } }\n`,
    );
    const d = decide(
      facts([effect("fs.write_file", { path: val(`${SANDBOX}/a.txt`), content: val("x") })]),
      exact,
      set,
    );
    expect(d).toMatchObject({ kind: "auto_approved", effects: [{ rule: "w", verdict: "allow" }] });
  });
});

describe("count and distinct", () => {
  const capped = policyOf(`
[[rules]]
id = "three-mails"
decision = "allow"
op = "email.send_email"
when = { count = { max = 3 }, distinct = "to" }
`);
  const counted = policyOf(
    `[[rules]]\nid = "three"\ndecision = "allow"\nop = "email.send_*"\nwhen = { count = { max = 3 } }\n`,
  );

  it("counts every call the rule's op matches", () => {
    const three = [
      mail(list(val("a@x.com")), {}, { min: 1, max: 2 }),
      effect("email.send_draft", { draft_id: val("d") }),
    ];
    const d = decide(facts(three), counted, set);
    expect(explain(facts(three), counted, set).effects[0]?.rules[0]).toMatchObject({
      holds: "yes",
      why: "at most 3 calls of email.send_*: yes (2..3 calls)",
    });
    expect(d.effects.map((e) => e.rule)).toEqual([null, null]); // a glob rule: consequential actions still ask
    const four = [mail(list(val("a@x.com")), {}, { min: 1, max: 3 }), mail(list(val("b@x.com")))];
    const exact = policyOf(
      `[[rules]]\nid = "three"\ndecision = "allow"\nop = "email.send_email"\nwhen = { count = { max = 3 } }\n`,
    );
    expect(decide(facts(four.slice(1)), exact, set).kind).toBe("auto_approved");
    const e = decide(facts(four), exact, set);
    expect(e.kind).toBe("ask");
    expect(e.effects[0]?.why).toMatch(
      /not proven: allow rule "three": at most 3 calls of email.send_email: maybe \(2\.\.4 calls\)/,
    );
  });

  it("distinct recipients in single calls are distinct", () => {
    expect(decide(facts([mail(list(val("a@x.com"))), mail(list(val("b@x.com")))]), capped, set).kind).toBe(
      "auto_approved",
    );
  });

  it("a call count surely above the bound does not match at all", () => {
    const e = explain(facts([mail(list(val("a@x.com")), {}, { min: 5, max: 5 })]), capped, set);
    expect(e.effects[0]?.rules[0]).toMatchObject({ id: "three-mails", holds: "no" });
  });

  it("an unbounded loop is bounded by an enforced count guarantee", () => {
    const loop = [mail(list(val("a@x.com")), {}, { min: 0, max: null })];
    expect(decide(facts(loop), capped, set).kind).toBe("ask");
    const bounded = facts(loop, [
      [{ op: "email.send_*", count: { max: 3 } }, "enforced"],
      [{ op: "email.send_*", distinct: "to" }, "enforced"],
    ]);
    const d = decide(bounded, capped, set);
    expect(d.kind).toBe("auto_approved");
    expect(d.grants[0]).toMatchObject({ op: "email.send_email", count: { max: 3 }, distinct: "to" });
    expect(d.guards).toEqual([
      { op: "email.send_*", count: { max: 3 } },
      { op: "email.send_*", distinct: "to" },
    ]);
  });

  it("distinct needs proof: the same recipient twice is not distinct", () => {
    const twice = [mail(list(val("a@x.com"))), mail(list(val("a@x.com")))];
    const e = explain(facts(twice), capped, set);
    expect(e.effects[0]?.rules[0]?.holds).not.toBe("yes");
    expect(e.decision.kind).toBe("ask");
  });
});

describe("unknown values and guarantees", () => {
  const toMe = policyOf(`
[[rules]]
id = "to-me"
decision = "allow"
op = "email.send_email"
when = { args = { to = { in = ["me@example.com"] } } }
`);

  it("an unknown recipient never satisfies an allow rule by itself", () => {
    for (const to of [unknown(), list(unknown()), list(str("me@", "example.com")), unknown("loop variable", false)]) {
      const d = decide(facts([mail(to)]), toMe, set);
      expect(d.kind).toBe("ask");
      expect(d.effects[0]?.rule).toBeNull();
    }
  });

  it("an enforced guarantee makes the unknown known: approved, and the guarantee is in the grant and the guards", () => {
    const recipientsOnly = { op: "email.*", args: { to: { in: ["me@example.com"] } } };
    const d = decide(facts([mail(list(unknown()))], [[recipientsOnly, "enforced"]]), toMe, set);
    expect(d.kind).toBe("auto_approved");
    expect(d.guards).toEqual([recipientsOnly]);
    // The facts (a list of one string) and the guarantee, both.
    expect(d.grants[0]?.args.to).toEqual({
      all: [
        { all: [{ type: ["array"] }, { min_length: 1 }, { max_length: 1 }, { elements: { type: ["string"] } }] },
        { in: ["me@example.com"] },
      ],
    });
  });

  it("a wider guarantee is not enough", () => {
    const wide = { op: "email.*", args: { to: { glob: "*@example.com" } } };
    expect(decide(facts([mail(list(unknown()))], [[wide, "enforced"]]), toMe, set).kind).toBe("ask");
  });

  it("refused facts are rejected before any rule is read", () => {
    const allowAll = policyOf(`[[rules]]\nid = "all"\ndecision = "allow"\nop = "*"\n`);
    const refuted = facts(
      [effect("fs.read_file", { path: val("/a") })],
      [[{ op: "fs.write_file", count: { max: 0 } }, "refuted"]],
    );
    refuted.guarantees[0]!.site = { line: 7, column: 3 };
    const d = decide(refuted, allowAll, set);
    expect(d.kind).toBe("auto_rejected");
    expect(d.effects[0]).toMatchObject({ rule: null, verdict: "deny" });
    expect(d.reason).toMatch(/^the program was refused: it breaks its own guarantee .* at line 7/);
    const broken = {
      ...facts([]),
      ok: false,
      diagnostics: [
        { severity: "error" as const, code: "refused_construct", message: "eval is not allowed", line: 3, column: 1 },
      ],
    };
    expect(decide(broken, allowAll, set)).toMatchObject({
      kind: "auto_rejected",
      reason: "the program was refused: 3:1: eval is not allowed",
    });
  });
});

describe("a deny rule that may apply becomes a guard and asks", () => {
  const sandbox = policyOf(`
[[rules]]
id = "outside"
decision = "deny"
op = "fs.write_file"
when = { args = { path = { not = { under = "~/Sandbox" } } } }
reason = "only inside the sandbox"

[[rules]]
id = "inside"
decision = "allow"
op = "fs.write_file"
when = { args = { path = { under = "~/Sandbox" } } }
`);

  it("an unknown path: ask, guarded by the rule's negation", () => {
    const d = decide(facts([effect("fs.write_file", { path: unknown(), content: val("x") })]), sandbox, set);
    expect(d.kind).toBe("ask");
    expect(d.effects[0]).toMatchObject({ rule: "outside", verdict: "ask" });
    expect(d.guards).toEqual([{ op: "fs.write_file", args: { path: { under: SANDBOX } } }]);
    expect(d.grants[0]?.args.path).toEqual({ all: [{ type: ["string"] }, { under: SANDBOX }] });
  });

  it("a path surely outside is rejected; surely inside is approved", () => {
    expect(
      decide(facts([effect("fs.write_file", { path: val("/etc/passwd"), content: val("x") })]), sandbox, set).kind,
    ).toBe("auto_rejected");
    expect(
      decide(
        facts([effect("fs.write_file", { path: val(`${SANDBOX}/a`, `${SANDBOX}/b/c`), content: unknown() })]),
        sandbox,
        set,
      ).kind,
    ).toBe("auto_approved");
    // A template's unknown middle may hold "..": not surely inside.
    expect(
      decide(facts([effect("fs.write_file", { path: str(`${SANDBOX}/`), content: unknown() })]), sandbox, set).kind,
    ).toBe("ask");
  });

  it("the guard covers every call of the op and is not needed once a guarantee decides it", () => {
    const d = decide(
      facts(
        [effect("fs.write_file", { path: unknown(), content: val("x") })],
        [[{ op: "fs.write_file", args: { path: { under: `${SANDBOX}/notes` } } }, "enforced"]],
      ),
      sandbox,
      set,
    );
    expect(d.kind).toBe("auto_approved");
    expect(d.guards).toEqual([{ op: "fs.write_file", args: { path: { under: `${SANDBOX}/notes` } } }]);
  });

  it("several undecided arguments are each negated (never weaker than the rule)", () => {
    const two = policyOf(`
[[rules]]
id = "leak"
decision = "deny"
op = "http.post"
when = { args = { url = { host_in = ["evil.com"] }, body = { glob = "*secret*" } } }
reason = "no secrets to evil.com"
`);
    const d = decide(facts([effect("http.post", { url: unknown(), body: unknown() })]), two, set);
    expect(d.guards).toEqual([
      { op: "http.post", args: { url: { not: { host_in: ["evil.com"] } }, body: { not: { glob: "*secret*" } } } },
    ]);
    const one = decide(facts([effect("http.post", { url: unknown(), body: val("a secret") })]), two, set);
    expect(one.guards).toEqual([{ op: "http.post", args: { url: { not: { host_in: ["evil.com"] } } } }]);
  });
});

describe("grants", () => {
  it("per op: connector pin, proven value sets, summed counts", () => {
    const allowAll = policyOf(`[[rules]]\nid = "all"\ndecision = "allow"\nop = "*"\n`);
    const d = decide(
      facts([
        mail(list(val("a@x.com")), {}, { min: 1, max: 2 }),
        mail(val(["b@x.com", "c@x.com"]), { subject: val("Re") }),
        effect("http.post", { url: val("https://api.example.com/x"), body: unknown() }),
      ]),
      allowAll,
      set,
    );
    const email = set.connectors.get("email")!.manifest.sha256;
    const strings = (...values: string[]) => ({ all: [{ type: ["string"] }, { in: values }] });
    expect(d.grants).toEqual([
      {
        op: "email.send_email",
        connector: { name: "email", sha256: email },
        args: {
          to: {
            all: [
              { type: ["array"] },
              { min_length: 1 },
              { max_length: 2 },
              { elements: strings("a@x.com", "b@x.com", "c@x.com") },
            ],
          },
          subject: strings("Hi", "Re"),
          body: strings("Hello"),
        },
        count: { max: 3 },
      },
      {
        op: "http.post",
        connector: { name: "http", sha256: set.connectors.get("http")!.manifest.sha256 },
        args: {
          url: strings("https://api.example.com/x"),
          body: { type: ["string"] },
          content_type: { type: ["null"] },
        },
        count: { max: 1 },
      },
    ]);
    expect(d.across).toEqual([]);
  });

  const allowAll = policyOf(`[[rules]]\nid = "all"\ndecision = "allow"\nop = "*"\n`);
  const recipientsOnly = { op: "email.*", args: { to: { in: ["bob@example.com"] } } };

  it("a guarantee about an input lands only where it can be checked: a read is not concerned, a resolved input (send_draft's `to`) carries it", () => {
    const effects = [
      mail(list(val("bob@example.com"))),
      effect("email.get_draft", { id: val("d1") }),
      effect("email.send_draft", { draft_id: val("d1") }),
    ];
    const d = decide(facts(effects, [[recipientsOnly, "enforced"]]), allowAll, set);
    const byOp = Object.fromEntries(d.grants.map((g) => [g.op, g]));
    expect(byOp["email.get_draft"]).toMatchObject({
      args: { id: { all: [{ type: ["string"] }, { in: ["d1"] }] } },
      count: { max: 1 },
    });
    expect(byOp["email.send_draft"]).toMatchObject({
      args: { draft_id: { all: [{ type: ["string"] }, { in: ["d1"] }] }, to: { in: ["bob@example.com"] } },
      count: { max: 1 },
    });
    expect(Object.keys(byOp["email.send_draft"]!.args)).toEqual(["draft_id", "to"]);
    expect(byOp["email.send_email"]?.count).toEqual({ max: 1 });
  });

  it("a guarantee about an input an op with effects neither has nor resolves allows it no call", () => {
    const effects = [effect("email.send_draft", { draft_id: val("d1") })];
    const d = decide(
      facts(effects, [[{ op: "email.*", args: { cc: { in: ["bob@example.com"] } } }, "enforced"]]),
      allowAll,
      set,
    );
    expect(d.grants.find((g) => g.op === "email.send_draft")?.count).toEqual({ max: 0 });
  });

  it("a count guarantee over several ops keeps one ledger across them, unless the grants keep it already", () => {
    const atMostOne = { op: "email.send_*", count: { max: 1 } };
    const either = [
      mail(list(val("bob@example.com")), {}, { min: 0, max: 1 }),
      effect("email.send_draft", { draft_id: val("d1") }, { min: 0, max: 1 }),
    ];
    const d = decide(facts(either, [[atMostOne, "enforced"]]), allowAll, set);
    expect(d.grants.map((g) => [g.op, g.count.max])).toEqual([
      ["email.send_email", 1],
      ["email.send_draft", 1],
    ]);
    expect(d.across).toEqual([{ ops: ["email.send_email", "email.send_draft"], count: { max: 1 } }]);
    const one = decide(facts([mail(list(val("bob@example.com")))], [[atMostOne, "proven"]]), allowAll, set);
    expect(one.across).toEqual([]);
  });

  it("distinct over several ops keeps one ledger across the ops that have the input; on one op it stays in its grant", () => {
    const unique = { op: "email.*", distinct: "to" };
    const two = [
      mail(list(val("a@x.com", "b@x.com"))),
      effect("email.draft_email", { to: list(val("a@x.com", "b@x.com")), subject: val("s"), body: val("b") }),
    ];
    const d = decide(facts(two, [[unique, "enforced"]]), allowAll, set);
    expect(d.across).toEqual([{ ops: ["email.send_email", "email.draft_email"], distinct: "to" }]);
    expect(d.grants.every((g) => g.distinct === undefined)).toBe(true);
    const single = decide(
      facts([mail(list(val("a@x.com")), {}, { min: 0, max: 2 })], [[unique, "enforced"]]),
      allowAll,
      set,
    );
    expect(single.grants[0]?.distinct).toBe("to");
    expect(single.across).toEqual([]);
  });

  it("the distinct bound of an allow rule that passed an effect is kept too: the grant's union would lose it", () => {
    const distinctMail = policyOf(
      `[[rules]]\nid = "d"\ndecision = "allow"\nop = "email.send_email"\nwhen = { distinct = "to" }\n`,
    );
    const d = decide(facts([mail(list(val("a@x.com"))), mail(list(val("b@x.com")))]), distinctMail, set);
    expect(d.kind).toBe("auto_approved");
    expect(d.grants[0]).toMatchObject({ op: "email.send_email", count: { max: 2 }, distinct: "to" });
  });

  it("an unbounded op has count.max null", () => {
    const d = decide(
      facts([effect("fs.read_file", { path: unknown() }, { min: 0, max: null })]),
      policyOf(`[[rules]]\nid = "r"\ndecision = "allow"\nop = "fs.read_file"\n`),
      set,
    );
    expect(d.grants[0]?.count).toEqual({ max: null });
    expect(d.grants[0]?.args).toEqual({ path: { type: ["string"] } }); // a required string input: some string
  });
});

describe("a resolved input (send_draft's `to`, read from the draft by the wrapper) is enforced at run time", () => {
  const sendDraft = () => effect("email.send_draft", { draft_id: val("d1") });
  const draftRule = (to: string) =>
    policyOf(
      `[[rules]]\nid = "drafts-to-team"\ndecision = "allow"\nop = "email.send_draft"\nwhen = { args = { to = ${to} } }\n`,
    );
  const toTeam = draftRule(`{ in = ["bob@example.com", "amy@example.com"] }`);
  const grantOf = (d: ReturnType<typeof decide>) => d.grants.find((g) => g.op === "email.send_draft");

  it("an allow rule's condition on it passes the effect, and the grant carries the condition for the wrapper to check", () => {
    const d = decide(facts([sendDraft()]), toTeam, set);
    expect(d.kind).toBe("auto_approved");
    expect(d.effects[0]).toMatchObject({
      rule: "drafts-to-team",
      verdict: "allow",
      why: expect.stringContaining("enforced at run time"),
    });
    expect(d.effects[0]?.why).toMatch(/email\.get_draft.*read by the trusted wrapper before each call/);
    expect(grantOf(d)?.args.to).toEqual({ in: ["bob@example.com", "amy@example.com"] });
  });

  it("a recipients guarantee inside the rule's list passes it through the guarantee, which the grant carries", () => {
    const d = decide(
      facts([sendDraft()], [[{ op: "email.*", args: { to: { in: ["bob@example.com"] } } }, "enforced"]]),
      draftRule(`{ glob = "*@example.com" }`),
      set,
    );
    expect(d.kind).toBe("auto_approved");
    expect(d.effects[0]?.why).toMatch(/every call must satisfy/);
    expect(grantOf(d)?.args.to).toEqual({ in: ["bob@example.com"] });
  });

  it("a guarantee that contradicts the rule: the rule does not apply, whatever the wrapper could check", () => {
    const d = decide(
      facts([sendDraft()], [[{ op: "email.*", args: { to: { in: ["eve@other.org"] } } }, "proven"]]),
      toTeam,
      set,
    );
    expect(d.kind).toBe("ask");
    expect(d.effects[0]).toMatchObject({ rule: null, verdict: "ask" });
  });

  it("a condition the grant cannot carry (where the value comes from) is not proven: a person decides", () => {
    const d = decide(
      facts([sendDraft()]),
      draftRule(`{ all = [{ glob = "*@example.com" }, { untrusted = false }] }`),
      set,
    );
    expect(d.kind).toBe("ask");
    expect(d.effects[0]).toMatchObject({ rule: null, verdict: "ask", why: expect.stringContaining("not proven") });
    expect(grantOf(d)?.args.to).toBeUndefined();
  });

  it("without a [resolve] section nothing reads the input: the rule's condition stays open and nothing auto-passes", () => {
    const action = set.actions.get("email.send_draft")!;
    const unresolved = {
      ...set,
      actions: new Map(set.actions).set("email.send_draft", {
        ...action,
        manifest: { ...action.manifest, resolve: undefined },
      }),
    };
    const d = decide(facts([sendDraft()]), toTeam, unresolved);
    expect(d.kind).toBe("ask");
    expect(d.effects[0]?.why).toMatch(/to is in \[.*\]: maybe \(not passed\)/);
  });

  it("an ask rule on it still asks, and a deny rule on it becomes a guard in the grant (a person cannot be asked at run time)", () => {
    const ask = decide(
      facts([sendDraft()]),
      policyOf(
        `[[rules]]\nid = "ask-out"\ndecision = "ask"\nop = "email.send_draft"\nwhen = { args = { to = { glob = "*@other.org" } } }\n[[rules]]\nid = "all"\ndecision = "allow"\nop = "email.send_draft"\n`,
      ),
      set,
    );
    expect(ask.effects[0]).toMatchObject({ rule: "ask-out", verdict: "ask" });
    const deny = policyOf(
      `[[rules]]\nid = "no-evil"\ndecision = "deny"\nop = "email.send_draft"\nwhen = { args = { to = { glob = "*@evil.com" } } }\nreason = "never evil.com"\n[[rules]]\nid = "all"\ndecision = "allow"\nop = "email.send_draft"\n`,
    );
    const guarded = decide(facts([sendDraft()]), deny, set);
    expect(guarded.effects[0]).toMatchObject({ rule: "no-evil", verdict: "ask" });
    // The guard compares mailboxes, as the deny rule was decided: evil.com's every spelling.
    expect(grantOf(guarded)?.args.to).toEqual({ not: { mailbox_glob: "*@evil.com" } });
    const known = decide(
      facts([sendDraft()], [[{ op: "email.*", args: { to: { in: ["bob@example.com"] } } }, "enforced"]]),
      deny,
      set,
    );
    expect(known.kind).toBe("auto_approved");
  });

  it("a glob allow rule still cannot lift the approval floor of send_draft", () => {
    const d = decide(
      facts([sendDraft()]),
      policyOf(
        `[[rules]]\nid = "mail"\ndecision = "allow"\nop = "email.*"\nwhen = { args = { to = { in = ["bob@example.com"] } } }\n`,
      ),
      set,
    );
    expect(d.kind).toBe("ask");
  });

  it("distinct over it: the calls that pass no value need no proof, the grant holds the drafts' recipients distinct at run time", () => {
    const distinctDrafts = policyOf(
      `[[rules]]\nid = "drafts-once-each"\ndecision = "allow"\nop = "email.send_draft"\nwhen = { distinct = "to" }\n`,
    );
    const twice = [
      effect("email.send_draft", { draft_id: val("d1") }),
      effect("email.send_draft", { draft_id: val("d2") }, { min: 0, max: 3 }),
    ];
    const d = decide(facts(twice), distinctDrafts, set);
    expect(d.kind).toBe("auto_approved");
    expect(d.effects[0]?.why).toMatch(
      /distinct to: yes \(the to read before each email\.send_draft call is held to it at run time by the receipt\)/,
    );
    expect(grantOf(d)).toMatchObject({ distinct: "to", count: { max: 4 } });
    const action = set.actions.get("email.send_draft")!;
    const unresolved = {
      ...set,
      actions: new Map(set.actions).set("email.send_draft", {
        ...action,
        manifest: { ...action.manifest, resolve: undefined },
      }),
    };
    expect(decide(facts(twice), distinctDrafts, unresolved).kind).toBe("ask");
  });

  it("a rule may name the resolved input: the policy loads", () => {
    expect(toTeam.rules.map((r) => r.when?.args)).toEqual([{ to: { in: ["bob@example.com", "amy@example.com"] } }]);
  });
});
