// The agent manifests a request kept, as both approval surfaces show them: each action's steps and
// the arguments each call resolves them to as facts, its descriptions as the agent's words (made
// visible and escaped like all agent text), over facts the real analyzer produces.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAnalyzer } from "../../src/analyze/index.js";
import { requestPage } from "../../src/app/request-page.js";
import { requestView } from "../../src/authority/ui/request-view.js";
import { requestLines } from "../../src/cli/approve/request-view.js";
import { loadPolicy } from "../../src/config/index.js";
import { checkAgentManifests } from "../../src/manifest/index.js";
import type { StoredRequest } from "../../src/model/index.js";
import { packageRoot } from "../../src/model/paths.js";
import { decide } from "../../src/policy/index.js";
import { shippedManifests } from "../policy/helpers.js";

const trusted = shippedManifests();
const HOSTILE = "Open an issue. <script>alert(1)</script>\n\u001b[32mproven\u001b[0m safe \u202Egnp.exe";
const text = readFileSync(join(packageRoot, "examples/agent-manifests/create_issue.toml"), "utf8").replace(
  'description = "Open an issue in a repository of the example issue tracker."',
  `description = ${JSON.stringify(HOSTILE)}`,
);
const set = checkAgentManifests(trusted, [{ name: "create_issue.toml", text }], {
  hosts: { http: ["api.example.com:443"] },
  roots: {},
}).set!;
const analyzer = createAnalyzer(set);
afterAll(() => analyzer.dispose());

function request(extra: Partial<StoredRequest> = {}): StoredRequest {
  const source = readFileSync(join(packageRoot, "examples", "file-issue.ts"), "utf8");
  const facts = analyzer.analyze(source, { entry: "file-issue.ts" });
  const policy = decide(
    facts,
    loadPolicy(join(packageRoot, "policies"), { manifests: trusted, home: "/home/user" }),
    trusted,
  );
  return {
    id: "req_AAAAAAAAAAAAAAAAAAAAAA",
    seq: 1,
    token: "agent",
    status: "pending",
    source,
    facts,
    policy,
    rationale: null,
    agent_manifests: set.agent!.text,
    created_at: 0,
    deadline_at: 900_000,
    decision: null,
    ...extra,
  };
}

describe("agent manifests on the request page", () => {
  it("each action with its steps as built, the arguments its call resolves them to, and its descriptions as the agent's words", () => {
    const { agent_manifests: kept } = requestPage({ request: request() });
    expect(kept).toMatchObject({ sha256: set.agent!.sha256 });
    if (kept === null || "unavailable" in kept) throw new Error("no actions");
    expect(kept.actions).toHaveLength(1);
    const [action] = kept.actions;
    expect(action).toMatchObject({ op: "agent.create_issue", approval_required: false, idempotent: false });
    expect(action!.inputs.map((i) => [i.name, i.type, i.required, i.description])).toEqual([
      ["repo", "string", true, "owner/name of the repository."],
      ["issue", "string", true, "The issue as JSON: its title and body."],
    ]);
    expect(action!.steps).toHaveLength(1);
    const [step] = action!.steps;
    expect(step!.op).toBe("http.post");
    expect(step!.inputs).toContainEqual({ name: "url", value: '"https://api.example.com/repos/${args.repo}/issues"' });
    expect(step!.calls).toEqual([
      expect.objectContaining({
        line: 11,
        count: "1",
        args: expect.arrayContaining([
          { name: "url", value: expect.stringContaining("https://api.example.com/repos/acme/widgets/issues") },
        ]),
      }),
    ]);
    // The agent's words, made visible: no raw escape or bidi control survives.
    expect(action!.description).toContain("<script>");
    expect(action!.description).not.toMatch(/[\u001b\u202e]/);
  });

  it("none submitted: null; submitted before they were kept, or unreadable: only the hash, said so", () => {
    const plain = request({ facts: { ...request().facts, agentManifests: undefined } });
    delete plain.agent_manifests;
    expect(requestPage({ request: plain }).agent_manifests).toBeNull();
    const old = request();
    delete old.agent_manifests;
    expect(requestPage({ request: old }).agent_manifests).toEqual({
      sha256: set.agent!.sha256,
      unavailable: expect.stringMatching(/were not kept with this request/),
    });
    const unreadable = request({ agent_manifests: '[["create_issue",{"name":"create_issue"}]]' });
    expect(requestPage({ request: unreadable }).agent_manifests).toEqual({
      sha256: set.agent!.sha256,
      unavailable: expect.stringMatching(/cannot be read as action manifests/),
    });
  });

  it("the browser page shows them between the calls and the preview, the description escaped inside the agent's box", async () => {
    const html = String(
      await requestView(requestPage({ request: request() }), { csrf: "t", approver: "alice", now: 60_000, pending: 1 }),
    );
    const at = (s: string) => html.indexOf(s);
    expect(at('id="h-calls"')).toBeLessThan(at('id="h-agent-actions"'));
    expect(at('id="h-agent-actions"')).toBeLessThan(at('id="h-previews"'));
    const section = html.slice(at('id="agent-actions"'), at('id="h-previews"'));
    expect(section).toContain("<code>agent.create_issue</code>");
    expect(section).toContain("<b>http.post</b>");
    expect(section).toContain("https://api.example.com/repos/acme/widgets/issues");
    expect(section).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(section).not.toContain("<script>");
    expect(section).toMatch(/<aside class="agent"[^>]*>[\s\S]*&lt;script&gt;/);
  });

  it("the terminal shows them in the same place, the description under the agent's gutter", () => {
    const lines = requestLines(requestPage({ request: request() }), { now: 60_000, showSource: false });
    const texts = lines.map((l) => l.text);
    const at = (prefix: string) => texts.findIndex((t) => t.startsWith(prefix));
    expect(at("── Trusted calls")).toBeLessThan(at("── Actions the agent defined"));
    expect(at("── Actions the agent defined")).toBeLessThan(at("── Preview"));
    expect(texts).toContain("  agent.create_issue");
    expect(texts).toContain("    step create: http.post, built as");
    expect(texts).toContain("      at line 11, 1 call, with");
    expect(texts.some((t) => t.includes("https://api.example.com/repos/acme/widgets/issues"))).toBe(true);
    const description = lines.filter((l) => l.style === "agent" && l.text.includes("<script>"));
    expect(description).toHaveLength(1);
    expect(description[0]!.gutter).toBe("  │ ");
  });

  it("an agent action's preview says its labels are the agent's words, on both surfaces", async () => {
    const req = request();
    const previews = [
      {
        effect: 0,
        op: "agent.create_issue",
        site: req.facts.effects[0]!.site,
        args: { repo: "acme/widgets" },
        fields: [{ label: "Checked by countersign", value: "42", multiline: false }],
      },
    ];
    const page = requestPage({ request: req, previews });
    const note = "an action the agent defined: the labels are its words, the values the provider's";
    expect(String(await requestView(page, { csrf: "t", approver: "alice", now: 60_000, pending: 1 }))).toContain(note);
    expect(requestLines(page, { now: 60_000, showSource: false }).map((l) => l.text)).toContain(`      (${note})`);
    const trusted = requestPage({ request: req, previews: [{ ...previews[0]!, op: "email.send_draft" }] });
    expect(String(await requestView(trusted, { csrf: "t", approver: "alice", now: 60_000, pending: 1 }))).not.toContain(
      note,
    );
  });
});
