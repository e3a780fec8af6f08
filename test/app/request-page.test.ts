// The approver's view model, over facts the real analyzer
// and the shipped policy produce for the examples.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAnalyzer } from "../../src/analyze/index.js";
import { requestPage } from "../../src/app/request-page.js";
import { visibleText } from "../../src/app/visible-text.js";
import { loadPolicy } from "../../src/config/index.js";
import type { StoredRequest } from "../../src/model/index.js";
import { packageRoot } from "../../src/model/paths.js";
import { decide, rememberRule } from "../../src/policy/index.js";
import { shippedManifests } from "../policy/helpers.js";
import { CREATE_ISSUE, withAgent } from "../support/agent-manifests.js";
import { forwardDraft, FROM_THE_DRAFT, IF_URGENT } from "../support/forward-draft.js";
import { storedRequest } from "../support/stored-request.js";

/** An agent action of two steps: it reads a URL, then posts what it read (its result may hold either answer). */
const FETCH_THEN_POST = CREATE_ISSUE.replace('name = "create_issue"', 'name = "fetch_then_post"')
  .replace(
    'id = "create"\nconnector = "http"\nop = "post"',
    'id = "read"\nconnector = "http"\nop = "get"\ninputs = { url = "${args.repo}" }\n\n[[execute]]\nid = "create"\nconnector = "http"\nop = "post"',
  )
  .replace('body = "${args.payload}"', 'body = "${read.body}"');

const manifests = shippedManifests();
const policy = loadPolicy(join(packageRoot, "policies"), { manifests, home: "/home/user" });
const analyzer = createAnalyzer(manifests);
afterAll(() => analyzer.dispose());

function stored(source: string, entry = "program.ts", extra: Partial<StoredRequest> = {}): StoredRequest {
  return storedRequest({ analyzer, policy, manifests }, source, entry, extra);
}
const example = (name: string) => stored(readFileSync(join(packageRoot, "examples", name), "utf8"), name);

describe("requestPage", () => {
  it("puts the verdict, facts, calls, the agent's words and the source of notify-team.ts in order", () => {
    const request = example("notify-team.ts");
    const page = requestPage({ request, remember: rememberRule(request.facts, request.policy, manifests) });
    expect(page).toMatchObject({
      id: request.id,
      status: "pending",
      final: false,
      entry: "notify-team.ts",
      submitter: "agent",
      created_at: "2030-01-01T00:00:00.000Z",
    });
    expect(page.verdict.kind).toBe("ask");
    expect(page.verdict.rulings).toEqual([
      expect.objectContaining({ op: "email.send_email", line: 12, verdict: "ask" }),
    ]);
    expect(page.facts.map((f) => [f.status, f.text])).toEqual([
      ["proven", "recipientsOnly(TEAM)"],
      ["proven", "atMostEmails(1)"],
      ["proven", expect.stringContaining("fs.*")],
    ]);
    expect(page.calls).toEqual([
      {
        op: "email.send_email",
        line: 12,
        column: 11,
        count: "1",
        args: [
          { name: "to", value: '= ["alice@example.com","bob@example.com"]', sources: null },
          { name: "subject", value: '= "Weekly report ready"', sources: null },
          { name: "body", value: '= "The weekly report is in /home/user/Sandbox/reports."', sources: null },
        ],
        influence: null,
      },
    ]);
    expect(page.rationale).toEqual({ program: "Tell the team the weekly report is ready.", submitter: null });
    expect(page.source.lines[11]).toContain("await sendEmail({");
    expect(page.source.call_lines).toEqual([12]);
    expect(page.previews).toBeNull();
    expect(page.remember?.rules).toEqual([
      expect.objectContaining({
        op: "email.send_email",
        id: expect.stringMatching(/^remembered\.email\.send_email\./),
      }),
    ]);
    expect(page.remember!.rules[0]!.text).toContain("alice@example.com");
    expect(page.remember!.rules[0]!.also).toMatch(/^Any later program, not only this one/);
    expect(JSON.parse(page.remember!.rules[0]!.rule)).toMatchObject({
      decision: "allow",
      op: "email.send_email",
      when: { count: { max: 1 } },
    });
  });

  it("a decided request is final and offers nothing to remember", () => {
    const request = example("notify-team.ts");
    const page = requestPage({
      request: {
        ...request,
        status: "rejected",
        decision: {
          kind: "rejected",
          approver: "alice",
          reason: "not today",
          feedback: null,
          at: Date.parse("2030-01-01T00:01:00Z"),
        },
      },
      remember: rememberRule(request.facts, request.policy, manifests),
    });
    expect(page.final).toBe(true);
    expect(page.remember).toBeNull();
    expect(page.decision).toEqual({
      kind: "rejected",
      approver: "alice",
      by: "person",
      rules: [],
      reason: "not today",
      feedback: null,
      at: "2030-01-01T00:01:00.000Z",
    });
  });

  it("marks values the analysis cannot bound as unknown, at their line", () => {
    const page = requestPage({ request: example("draft-and-send.ts") });
    const unknown = page.facts.filter((f) => f.status === "unknown");
    expect(unknown).toEqual([
      expect.objectContaining({ text: expect.stringContaining("draft_id of email.send_draft"), line: 16 }),
    ]);
  });

  it("says what remembering cannot pin, per op", () => {
    const request = example("draft-and-send.ts");
    const page = requestPage({ request, remember: rememberRule(request.facts, request.policy, manifests) });
    expect(page.remember!.refused).toEqual([
      expect.objectContaining({ op: "email.send_draft", why: expect.stringContaining("draft_id") }),
    ]);
  });

  it("renders previews as the authority fetched them: fields with their flags, n/a kept, and unavailable with its reason", () => {
    const request = example("notify-team.ts");
    const site = { line: 16, column: 5 };
    const page = requestPage({
      request,
      previews: [
        {
          effect: 0,
          op: "email.send_draft",
          site,
          args: { draft_id: "d1" },
          fields: [
            { label: "To", value: "bob@example.com", multiline: false },
            { label: "Body", value: "a\nb", multiline: true },
            { label: "Cc", value: "n/a", multiline: false },
          ],
        },
        {
          effect: 0,
          op: "email.send_draft",
          site: { line: 20, column: 5 },
          args: {},
          unavailable: "Preview unavailable: no answer within 5000 ms",
        },
      ],
    });
    expect(page.previews).toEqual([
      {
        op: "email.send_draft",
        line: 16,
        fields: [
          { label: "To", value: "bob@example.com", multiline: false },
          { label: "Body", value: "a\nb", multiline: true },
          { label: "Cc", value: "n/a", multiline: false },
        ],
      },
      { op: "email.send_draft", line: 20, unavailable: "Preview unavailable: no answer within 5000 ms" },
    ]);
    expect(requestPage({ request }).previews).toBeNull();
  });

  it("makes every control, escape and bidi character in agent text visible, everywhere on the page", () => {
    const hostile = "ok\u202Eevil\u001b[31mred\u0007\r\u200Bend\tx";
    const request = stored(
      `import { program } from "countersign";\n// ${hostile.replace("\r", "")}\nexport default program({ rationale: ${JSON.stringify(hostile)}, guarantees: [], async main() {} });\n`,
      "x.ts",
      { rationale: hostile },
    );
    const page = requestPage({
      request,
      previews: [
        {
          effect: 0,
          op: "email.send_draft",
          site: { line: 1, column: 1 },
          args: {},
          fields: [{ label: "Body", value: hostile, multiline: true }],
        },
      ],
    });
    const strings: string[] = [];
    JSON.stringify(page, (_, v: unknown) => (typeof v === "string" && strings.push(v), v));
    expect(
      strings.filter((s) => /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e]/.test(s)),
    ).toEqual([]);
    expect(page.rationale.submitter).toBe("ok⟨U+202E⟩evil⟨U+001B⟩[31mred⟨U+0007⟩⟨U+000D⟩⟨U+200B⟩end\tx");
    expect(page.rationale.program).toBe(page.rationale.submitter);
    expect(page.source.lines[1]).toContain("⟨U+202E⟩evil⟨U+001B⟩");
  });
});

describe("requestPage: where each argument comes from and what steers each call (issue 15)", () => {
  it("says the recipients come from the draft, untrusted, beside their value", () => {
    const page = requestPage({ request: stored(forwardDraft()) });
    expect(page.verdict.rulings.find((r) => r.op === "email.send_email")).toMatchObject({
      verdict: "ask",
      rule: "email.untrusted-recipients",
    });
    const send = page.calls.find((c) => c.op === "email.send_email")!;
    const arg = (name: string) => send.args.find((a) => a.name === name)!;
    expect(arg("to").value).toBe("is unknown (from the result of email.get_draft, field $.body — untrusted)");
    expect(arg("to").sources).toEqual({ text: FROM_THE_DRAFT, untrusted: true, own: false });
    expect(arg("body").sources).toEqual(arg("to").sources);
    expect(arg("subject").sources).toBeNull(); // the program's own value
    // The draft read itself: its id is the program's own, and nothing steers it.
    expect(page.calls.find((c) => c.op === "email.get_draft")).toMatchObject({
      args: [{ name: "id", value: '= "r-1"', sources: null }],
      influence: null,
    });
  });

  it("says a call runs only as untrusted data says, even when its arguments are the program's own", () => {
    const page = requestPage({ request: stored(forwardDraft("r-1", IF_URGENT)) });
    const urgent = page.calls.filter((c) => c.op === "email.send_email").at(-1)!;
    expect(urgent.args.map((a) => a.sources)).toEqual([null, null, null]);
    expect(urgent.influence).toEqual({
      text: `whether it runs, how often and with which values may depend on ${FROM_THE_DRAFT}`,
      untrusted: true,
      own: false,
    });
  });

  it("keeps hostile text in a source's description visible as text", () => {
    const page = requestPage({ request: stored(forwardDraft("r-1\u202Egpj.exe\u001b[2J")) });
    const to = page.calls.find((c) => c.op === "email.send_email")!.args.find((a) => a.name === "to")!;
    expect(to.sources!.text).toBe(
      'the result of email.get_draft (id = "r-1⟨U+202E⟩gpj.exe\\u001b[2J"), field $.body — untrusted',
    );
  });

  it("words an agent action's result as one source: the action and what its steps got back", () => {
    const set = withAgent([{ name: "fetch_then_post.toml", text: FETCH_THEN_POST }], {
      hosts: { http: ["api.github.com:443"] },
      roots: {},
    });
    const agentAnalyzer = createAnalyzer(set);
    try {
      const source = `import { program } from "countersign";
import { fetchThenPost } from "trusted/agent";
import { sendEmail } from "trusted/email";
export default program({
  rationale: "File the bug, then tell whoever it names.",
  async main() {
    const answer = await fetchThenPost({ repo: "https://api.github.com/repos/acme/widgets", payload: "" });
    await sendEmail({ to: [answer.body], subject: "Filed", body: "A bug was filed." });
  },
});
`;
      const facts = agentAnalyzer.analyze(source, { entry: "agent.ts" });
      expect(facts.diagnostics).toEqual([]);
      const request: StoredRequest = { ...stored(forwardDraft()), source, facts, policy: decide(facts, policy, set) };
      const to = requestPage({ request })
        .calls.find((c) => c.op === "email.send_email")!
        .args.find((a) => a.name === "to")!;
      expect(to.sources).toEqual({
        text: 'the result of agent.fetch_then_post, field $.body, which may hold what its steps got back: http.get (url = "https://api.github.com/repos/acme/widgets"), http.post (url = "https://api.github.com/repos/https://api.github.com/repos/acme/widgets/i…) — untrusted',
        untrusted: true,
        own: false,
      });
    } finally {
      agentAnalyzer.dispose();
    }
  });
});

describe("visibleText", () => {
  it("keeps ordinary text, line feeds and tabs; marks C0, C1, DEL, bidi and zero-width characters", () => {
    expect(visibleText("héllo\n\tworld ✓ <b>")).toBe("héllo\n\tworld ✓ <b>");
    expect(visibleText("\u0000\u009b\u007f\u061c\u200e\u2066\u2069\ufeff")).toBe(
      "⟨U+0000⟩⟨U+009B⟩⟨U+007F⟩⟨U+061C⟩⟨U+200E⟩⟨U+2066⟩⟨U+2069⟩⟨U+FEFF⟩",
    );
  });
});
