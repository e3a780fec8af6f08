import { describe, expect, it } from "vitest";
import { decide } from "../../src/policy/decide.js";
import { rememberRule } from "../../src/policy/remember-rule.js";
import type { Policy } from "../../src/policy/schema.js";
import type { Effect } from "../../src/model/facts.js";
import { effect, facts, list, mail, policyOf, shippedManifests, str, unknown, val } from "./helpers.js";

const set = shippedManifests();
const base = policyOf(`default = "ask"\n[[rules]]\nid = "reads"\ndecision = "allow"\nop = "fs.read_file"\n`);

/** The base policy plus the remembered rules. */
function withRules(policy: Policy, effects: Effect[]): Policy {
  const remembered = rememberRule(facts(effects), decide(facts(effects), policy, set), set);
  const rules = remembered.flatMap((r) => (r.rule === null ? [] : [{ ...r.rule, file: "remembered.toml" }]));
  return { ...policy, rules: [...policy.rules, ...rules] };
}

describe("rememberRule", () => {
  const program = [
    mail(list(val("bob@example.com", "amy@example.com"), 1, 2), {}, { min: 1, max: 2 }),
    effect("fs.write_file", { path: val("/home/me/Sandbox/a.txt"), content: val("hello") }),
  ];

  it("pins every input to its constants and the calls to the program's total, naming the op exactly", () => {
    const remembered = rememberRule(facts(program), decide(facts(program), base, set), set);
    expect(remembered).toEqual([
      {
        op: "email.send_email",
        rule: {
          id: "remembered.email.send_email.abababababab",
          decision: "allow",
          op: "email.send_email",
          when: {
            args: {
              to: { in: ["bob@example.com", "amy@example.com"] },
              subject: { in: ["Hi"] },
              body: { in: ["Hello"] },
            },
            count: { max: 2 },
          },
          reason: "approved and remembered for program abababababab",
        },
      },
      {
        op: "fs.write_file",
        rule: expect.objectContaining({
          op: "fs.write_file",
          when: { args: { path: { in: ["/home/me/Sandbox/a.txt"] }, content: { in: ["hello"] } }, count: { max: 1 } },
        }),
      },
    ]);
  });

  it("the remembered rules auto-approve the same program, consequential actions included", () => {
    expect(decide(facts(program), base, set).kind).toBe("ask");
    expect(decide(facts(program), withRules(base, program), set).kind).toBe("auto_approved");
  });

  it("never widens: one more recipient, another path, other content or one more call is not approved", () => {
    const policy = withRules(base, program);
    const [email, write] = program as [Effect, Effect];
    const variants: Effect[][] = [
      [mail(list(val("bob@example.com", "amy@example.com", "eve@example.com"), 1, 3), {}, { min: 1, max: 2 }), write],
      [email, effect("fs.write_file", { path: val("/home/me/Sandbox/b.txt"), content: val("hello") })],
      [email, effect("fs.write_file", { path: val("/home/me/Sandbox/a.txt"), content: val("other") })],
      [mail(list(val("bob@example.com")), {}, { min: 1, max: 3 }), write],
      [email, email, write],
      [
        email,
        effect("fs.write_file", { path: val("/home/me/Sandbox/a.txt"), content: val("hello") }, { min: 1, max: 2 }),
      ],
      [email, effect("fs.write_file", { path: str("/home/me/Sandbox/a.txt"), content: val("hello") })],
      [email, effect("fs.write_file", { path: unknown(), content: val("hello") })],
    ];
    for (const effects of variants) expect(decide(facts(effects), policy, set).kind).toBe("ask");
  });

  it("makes no rule for an op whose arguments or count are not finite, and says why", () => {
    const open = [
      effect("fs.write_file", { path: str("/home/me/Sandbox/"), content: val("x") }),
      mail(list(val("bob@example.com")), {}, { min: 0, max: null }),
      effect("http.post", { url: val("https://api.example.com/"), body: unknown() }),
    ];
    const remembered = rememberRule(facts(open), decide(facts(open), base, set), set);
    expect(remembered).toEqual([
      {
        op: "fs.write_file",
        rule: null,
        why: expect.stringMatching(
          /^path is a string starting "\/home\/me\/Sandbox\/" \(from template — untrusted\): only a finite set of constants/,
        ),
      },
      { op: "email.send_email", rule: null, why: "the number of email.send_email calls is not bounded" },
      {
        op: "http.post",
        rule: null,
        why: expect.stringMatching(/^body is any string \(from result of email.get_draft — untrusted\)/),
      },
    ]);
  });

  it("an enforced guarantee makes an unknown argument rememberable", () => {
    const effects = [mail(list(unknown()))];
    const f = facts(effects, [[{ op: "email.*", args: { to: { in: ["bob@example.com"] } } }, "enforced"]]);
    const [remembered] = rememberRule(f, decide(f, base, set), set);
    expect(remembered?.rule?.when?.args?.to).toEqual({ in: ["bob@example.com"] });
  });

  it("remembers an absent optional input as null, so passing it later is not approved", () => {
    const post = [effect("http.post", { url: val("https://api.example.com/"), body: val("{}") })];
    const policy = withRules(base, post);
    expect(policy.rules.at(-1)?.when?.args?.content_type).toEqual({ in: [null] });
    expect(decide(facts(post), policy, set).kind).toBe("auto_approved");
    const typed = [
      effect("http.post", { url: val("https://api.example.com/"), body: val("{}"), content_type: val("text/html") }),
    ];
    expect(decide(facts(typed), policy, set).kind).toBe("ask");
  });

  it("remembers nothing for a rejected request", () => {
    const strict = policyOf(`default = "deny"\n`);
    const f = facts([effect("fs.read_file", { path: val("/a") })]);
    expect(rememberRule(f, decide(f, strict, set), set)).toEqual([
      { op: "fs.read_file", rule: null, why: "the request was rejected; there is nothing to remember" },
    ]);
  });
});

describe("rememberRule on a resolved action (send_draft): the content shown, never only the reference", () => {
  const sends = [effect("email.send_draft", { draft_id: val("r1") })];
  const decision = () => decide(facts(sends), base, set);

  it("before an approval: the rule to save, and the resolved inputs it will bind as shown", () => {
    const [remembered] = rememberRule(facts(sends), decision(), set);
    expect(remembered).toMatchObject({
      op: "email.send_draft",
      rule: { when: { args: { draft_id: { in: ["r1"] } } } },
      binds: ["to", "subject", "body"],
    });
  });

  it("at approval: the rule holds the recipients, subject and body shown", () => {
    const shown = {
      to: { elements: { in: ["carol@example.net"] } },
      subject: { sha256: ["a".repeat(64)] },
      body: { sha256: ["b".repeat(64)] },
    };
    const [remembered] = rememberRule(facts(sends), decision(), set, new Map([["email.send_draft", shown]]));
    expect(remembered!.rule!.when!.args).toEqual({ draft_id: { in: ["r1"] }, ...shown });
  });

  it("at approval without the content (it could not be read): no rule, rather than one that pins only the draft id", () => {
    const [remembered] = rememberRule(facts(sends), decision(), set, new Map());
    expect(remembered).toMatchObject({
      op: "email.send_draft",
      rule: null,
      why: expect.stringContaining("remembering only its reference would allow any content"),
    });
  });
});
