// The request page's HTML from a view model: previews as the preview step attaches them, and
// values from outside (a draft's body, a page title) escaped like the agent's own text.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAnalyzer } from "../../../src/analyze/index.js";
import { requestPage } from "../../../src/app/index.js";
import { requestView } from "../../../src/authority/ui/request-view.js";
import { loadPolicy } from "../../../src/config/index.js";
import type { PreviewShown, StoredRequest } from "../../../src/model/index.js";
import { packageRoot } from "../../../src/model/paths.js";
import { decide } from "../../../src/policy/index.js";
import { shippedManifests } from "../../policy/helpers.js";

const manifests = shippedManifests();
const analyzer = createAnalyzer(manifests);
afterAll(() => analyzer.dispose());

function request(): StoredRequest {
  const source = readFileSync(join(packageRoot, "examples", "draft-and-send.ts"), "utf8");
  const facts = analyzer.analyze(source, { entry: "draft-and-send.ts" });
  const policy = decide(facts, loadPolicy(join(packageRoot, "policies"), { manifests, home: "/home/user" }), manifests);
  return {
    id: "req_AAAAAAAAAAAAAAAAAAAAAA",
    seq: 1,
    token: "agent",
    status: "pending",
    source,
    facts,
    policy,
    rationale: null,
    created_at: 0,
    deadline_at: 900_000,
    decision: null,
  };
}
const options = { csrf: "token", approver: "alice", now: 60_000, pending: 1 };
const render = async (previews?: PreviewShown[], extra: Partial<Parameters<typeof requestView>[1]> = {}) =>
  String(await requestView(requestPage({ request: request(), previews, manifests }), { ...options, ...extra }));
const FAILED: PreviewShown = {
  effect: 0,
  op: "email.send_draft",
  site: { line: 16, column: 11 },
  args: {},
  unavailable: "Preview unavailable: email.get_draft: the mail API answered 404",
};
const between = (page: string, from: string, to: string) =>
  page.slice(page.indexOf(from), page.indexOf(to, page.indexOf(from)));

describe("the request page's previews", () => {
  it("shows fields, multiline ones as scrollable blocks, n/a for missing ones, and why a preview is unavailable", async () => {
    const page = await render([
      {
        effect: 0,
        op: "email.send_draft",
        site: { line: 16, column: 11 },
        args: { draft_id: "d1" },
        fields: [
          { label: "To", value: "bob@example.com", multiline: false },
          { label: "Body", value: "Hi Bob,\n<script>x()</script>", multiline: true },
          { label: "Cc", value: "n/a", multiline: false },
        ],
      },
      {
        effect: 0,
        op: "email.send_draft",
        site: { line: 16, column: 11 },
        args: {},
        unavailable: "Preview unavailable: the draft service timed out after 5 s",
      },
    ]);
    const section = page.slice(page.indexOf('id="h-previews"'), page.indexOf('id="h-agent"'));
    expect(section).toContain('<b>email.send_draft</b> <a href="#L16" class="line">line 16</a>');
    expect(section).toContain("<dt>To</dt><dd>bob@example.com</dd>");
    expect(section).toContain(
      '<dt>Body</dt><dd><pre class="scroll" tabindex="0">Hi Bob,\n&lt;script&gt;x()&lt;/script&gt;</pre></dd>',
    );
    expect(section).toContain("<dt>Cc</dt><dd>n/a</dd>");
    expect(section).toMatch(
      /<div class="preview failed" role="note"><span class="level warning">Warning<\/span> <b>email.send_draft<\/b> <a href="#L16" class="line">line 16<\/a>: <span class="unavailable">Preview unavailable: the draft service timed out after 5 s<\/span>/,
    );
  });

  it("says there is no preview when the request has none", async () => {
    for (const previews of [undefined, []]) expect(await render(previews)).toContain("No preview for this request.");
  });
});

describe("the request page's first screen (issue 26)", () => {
  it("opens with the headline, the status, the ranked risks and the actions; the detail follows", async () => {
    const page = await render([FAILED]);
    const order = [
      '<h1 id="headline">',
      'id="status"',
      'id="risks"',
      'id="actions"',
      'id="h-verdict"',
      'id="h-facts"',
      'id="h-calls"',
      'id="h-previews"',
      'id="h-agent"',
      'id="h-source"',
    ].map((marker) => page.indexOf(marker));
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((x, y) => x - y)).toEqual(order);
    expect(page).toContain(
      '<h1 id="headline">Sends 1 email to bob@example.com (the draft it creates) and creates 1 draft email to bob@example.com.</h1>',
    );
    expect(page).toContain('<body data-request="req_AAAAAAAAAAAAAAAAAAAAAA">');
  });

  it("lists the risks most serious first, each with its level in words; a danger that hides what approving does takes Approve off the bright default", async () => {
    const page = await render([FAILED]);
    const risks = between(page, 'id="risks"', "</section>");
    expect(risks.match(/data-kind="[a-z_]+"/g)).toEqual([
      'data-kind="preview_unavailable"',
      'data-kind="mail_to_others"',
    ]);
    expect(risks).toContain(
      '<li class="risk danger" data-kind="preview_unavailable"><span class="level danger">Danger</span> <b>preview unavailable:</b> Preview unavailable: email.get_draft: the mail API answered 404 — you cannot see who gets this mail or what it says.</li>',
    );
    expect(risks).toContain('<span class="level warning">Warning</span> <b>mail to others:</b>');
    expect(page).toContain(
      '<button class="secondary" id="approve-once" aria-describedby="approve-why">Approve once</button>',
    );
    expect(page).toContain(
      '<p class="approve-why" id="approve-why"><span class="level danger">Look first</span> Approve is not the default here: preview unavailable (see above).</p>',
    );
    const plain = await render([]);
    expect(plain).toContain('<button class="primary" id="approve-once">Approve once</button>');
    expect(plain).not.toContain('id="approve-why"');
  });

  it("labels a value the program's own earlier call made as such, never as untrusted; counts and backticks read as plain words", async () => {
    const page = await render();
    const calls = between(page, 'id="h-calls"', "</section>");
    expect(calls).toContain(
      `<span class="source own"><span class="tag own">the program's own earlier call</span> comes from what its own email.draft_email call made (line 10), not third-party content</span>`,
    );
    expect(calls).toContain(
      `<span class="source own"><span class="tag own">the program's own earlier call</span> steered by data:`,
    );
    expect(calls).not.toContain("source untrusted");
    expect(calls).toMatch(/, 1 call\n/);
    expect(page).not.toMatch(/\b1 calls\b/);
    const shown =
      page.slice(0, page.indexOf('<ol class="source">')) +
      page.slice(page.indexOf("</ol>", page.indexOf('<ol class="source">'))); // the source as written aside
    expect(shown).not.toContain("`");
  });

  it("words a decision by a remembered rule as such, with the rule's id", async () => {
    const base = request();
    const rule = "remembered.email.send_draft.abc123";
    const decided: StoredRequest = {
      ...base,
      status: "approved",
      policy: {
        ...base.policy,
        kind: "auto_approved",
        effects: base.policy.effects.map((e) => ({ ...e, verdict: "allow" as const, rule })),
      },
      decision: { kind: "auto_approved", approver: null, reason: null, feedback: null, at: 30_000 },
    };
    const page = String(await requestView(requestPage({ request: decided, manifests }), options));
    expect(between(page, 'id="status"', "</div>")).toContain(
      `<span class="tag auto_approved">auto approved</span> by a remembered rule <code>${rule}</code>`,
    );
    expect(between(page, 'id="actions"', "</section>")).toContain(`by a remembered rule <code>${rule}</code>`);
    expect(page).not.toContain("by the policy");
  });

  it("asks to confirm text the facts do not answer, holding it; keeps what was typed when an answer is shown", async () => {
    const confirm = await render([], { confirm: "Use <i>my</i> address" });
    expect(confirm).toContain('<details id="ask-box" open>');
    expect(confirm).toContain(
      '<textarea id="confirm-text" name="text" required maxlength="10000" rows="3">Use &lt;i&gt;my&lt;/i&gt; address</textarea>',
    );
    expect(confirm).toContain('<input type="hidden" name="action" value="request_more">');
    expect(confirm).toContain(
      '<button class="warning" id="confirm-request-more">Send to the agent and end this request</button>',
    );
    const answered = await render([], {
      answer: {
        topic: "email_count",
        topics: ["email_count"],
        question: "How many emails will be sent?",
        lines: ["Exactly 1 email."],
      },
      asked: "how many mails?",
    });
    expect(answered).toContain("<li>Exactly 1 email.</li>");
    expect(answered).toMatch(/<textarea id="ask-text"[^>]*>how many mails\?<\/textarea>/);
  });
});
