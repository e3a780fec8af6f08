import { afterAll, describe, expect, it } from "vitest";
import { handlesTakenUp, resolveHandles, type KnownHandle } from "../../src/given/index.js";
import { CountersignError, Facts } from "../../src/model/index.js";
import { decide } from "../../src/policy/decide.js";
import { programOf, sharedAnalyzer } from "../analyze/harness.js";
import { policyOf, shippedManifests } from "../policy/helpers.js";

const analyzer = sharedAnalyzer();
afterAll(() => analyzer.dispose());
const set = shippedManifests();

const TOP = `import { fromHandle } from "countersign";\n`;
const SEND = `const v = await fromHandle("h_abc");\n if (v !== null) await sendEmail({ to: ["a@x.com"], subject: "s", body: String(v) });\n return { copy: v, note: "done" };`;
const analyze = (main: string): Facts => analyzer.analyze(programOf({ top: TOP, main }));
const known = (from: string[]): Map<string, KnownHandle> => new Map([["h_abc", { from, request: "req_1" }]]);

describe("resolveHandles", () => {
  it("makes every source naming the handle exact: one untrusted source per op, everywhere in the facts", () => {
    const resolved = resolveHandles(analyze(SEND), known(["email.get_draft", "http.get"]));
    expect(Facts.parse(resolved)).toEqual(resolved);
    const exact = [
      {
        source: "result of email.get_draft in request req_1, held as h_abc",
        untrusted: true,
        op: "email.get_draft",
        handle: "h_abc",
      },
      {
        source: "result of http.get in request req_1, held as h_abc",
        untrusted: true,
        op: "http.get",
        handle: "h_abc",
      },
    ];
    const send = resolved.effects[0]!;
    expect(send.sources!.body).toEqual(exact);
    expect(send.args.body).toMatchObject({ provenance: exact });
    expect(send.influencedBy).toEqual(expect.arrayContaining(exact));
    expect(resolved.result!.parts.find((p) => p.path === "$.copy")).toEqual({
      path: "$.copy",
      from: ["email.get_draft", "http.get"],
      untrusted: true,
      handles: ["h_abc"],
    });
    expect(resolved.result!.parts.find((p) => p.path === "$.note")).toEqual({
      path: "$.note",
      from: [],
      untrusted: true,
    });
    expect(JSON.stringify(resolved)).not.toContain('"quarantined result h_abc"');
  });

  it("a handle whose op is unknown stays untrusted and of unknown origin", () => {
    const resolved = resolveHandles(analyze(SEND), known([]));
    expect(resolved.effects[0]!.sources!.body).toEqual([
      { source: "result of an unknown op in request req_1, held as h_abc", untrusted: true, handle: "h_abc" },
    ]);
  });

  it("leaves facts without handles as they are", () => {
    const facts = analyze(`await sendEmail({ to: ["a@x.com"], subject: "s", body: "b" });`);
    expect(resolveHandles(facts, new Map())).toEqual(facts);
  });

  it("a handle the authority does not know is a usage error naming it", () => {
    let thrown: unknown;
    try {
      resolveHandles(analyze(SEND), new Map([["h_other", { from: ["http.get"], request: "req_2" }]]));
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(CountersignError);
    expect(thrown).toMatchObject({ class: "usage_error", details: { reason: "unknown_handle", handle: "h_abc" } });
  });

  it("rules on from see through the handle: only a handle of another op's result passes a rule that excludes drafts", () => {
    const policy = policyOf(`default = "ask"
[[rules]]
id = "not-drafts-may-go"
decision = "allow"
op = "email.send_email"
when = { args = { body = { not = { from = ["email.get_draft"] } } } }
`);
    const facts = analyze(SEND);
    expect(decide(facts, policy, set).kind).toBe("ask"); // unresolved: may be any op's result
    expect(decide(resolveHandles(facts, known(["email.get_draft"])), policy, set).kind).toBe("ask");
    expect(decide(resolveHandles(facts, known(["http.get"])), policy, set).kind).toBe("auto_approved");
  });
});

describe("handlesTakenUp", () => {
  it("finds every handle a program's facts name, in sources, influence and result parts", () => {
    const p = (handle: string) => ({ source: `quarantined result ${handle}`, untrusted: true, handle });
    const facts = {
      program: { sha256: "ab".repeat(32), entry: "p.ts" },
      ok: true,
      diagnostics: [],
      effects: [
        {
          op: "email.send_email",
          connector: "email",
          action: "send_email",
          site: { line: 1, column: 1 },
          args: { body: { kind: "unknown" as const, provenance: [p("h_a")] } },
          count: { min: 1, max: 1 },
          influencedBy: [p("h_b")],
        },
      ],
      guarantees: [],
      summary: [],
      rationale: "r",
      result: { parts: [{ path: "$", from: [], untrusted: true, handles: ["h_c"] }] },
    };
    expect(handlesTakenUp(facts).sort()).toEqual(["h_a", "h_b", "h_c"]);
  });
});
