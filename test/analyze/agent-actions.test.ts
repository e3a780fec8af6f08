import { describe, expect, it } from "vitest";
import { createAnalyzer } from "../../src/analyze/index.js";
import { generateApi } from "../../src/manifest/index.js";
import { CREATE_ISSUE, withAgent } from "../support/agent-manifests.js";
import { STEP_BUDGET } from "./support/step-budget.js";

const allowlists = { hosts: { http: ["api.github.com:443"] }, roots: {} };
const set = withAgent(
  [
    { name: "create_issue.toml", text: CREATE_ISSUE },
    {
      name: "fetch_then_post.toml",
      text: CREATE_ISSUE.replace('name = "create_issue"', 'name = "fetch_then_post"')
        .replace(
          'id = "create"\nconnector = "http"\nop = "post"',
          'id = "read"\nconnector = "http"\nop = "get"\ninputs = { url = "${args.repo}" }\n\n[[execute]]\nid = "create"\nconnector = "http"\nop = "post"',
        )
        .replace('body = "${args.payload}"', 'body = "${read.body}"'),
    },
  ],
  allowlists,
);
const analyzer = createAnalyzer(set, { budget: STEP_BUDGET });

const program = (main: string, guarantees = "") => `import { program } from "countersign";
import { createIssue, fetchThenPost } from "trusted/agent";
export default program({
  rationale: "File the bug.",
  guarantees: [${guarantees}],
  async main() {
${main}
  },
});
`;

describe("agent actions in the analysis", () => {
  it("are declared in trusted/agent with the agent's description marked as its words and their real effects", () => {
    const api = generateApi(set).modules["trusted/agent"]!;
    expect(api).toContain("Agent-submitted action: Open an issue in a GitHub repository.");
    expect(api).toContain("Effects: `http.get`, then `http.post`.");
    expect(api).toContain("export function createIssue(args: {");
  });

  it("expand into their steps' trusted ops with the arguments interpolated, and say which agent action made them", () => {
    const facts = analyzer.analyze(
      program(`    for (const repo of ["acme/widgets", "acme/gears"]) await createIssue({ repo, payload: "{}" });`),
    );
    expect(facts.diagnostics).toEqual([]);
    expect(facts.ok).toBe(true);
    expect(facts.agentManifests).toEqual({ sha256: set.agent!.sha256 });
    expect(facts.effects).toHaveLength(1);
    const [effect] = facts.effects;
    expect(effect).toMatchObject({ op: "http.post", connector: "http", action: "post", count: { min: 2, max: 2 } });
    expect(effect!.agentAction).toMatchObject({
      op: "agent.create_issue",
      step: "create",
      description: "Open an issue in a GitHub repository.",
    });
    // The call's own arguments, by the agent action's input names (what its preview is filled from).
    expect(effect!.agentAction!.args).toMatchObject({
      repo: { kind: "const", values: ["acme/widgets", "acme/gears"] },
      payload: { kind: "const", values: ["{}"] },
    });
    expect(effect!.args.url).toEqual({
      kind: "const",
      values: ["https://api.github.com/repos/acme/widgets/issues", "https://api.github.com/repos/acme/gears/issues"],
    });
    expect(effect!.args.content_type).toEqual({ kind: "const", values: ["application/json"] });
    expect(facts.summary.join("\n")).toContain("http.post");
  });

  it("let guarantees see the real ops: proven from the manifest's template and the program's arguments", () => {
    const facts = analyzer.analyze(
      program(
        `    await createIssue({ repo: "acme/widgets", payload: "{}" });`,
        `{ op: "http.*", args: { url: { host_in: ["api.github.com"] } } }, { op: "http.post", count: { max: 1 } }`,
      ),
    );
    expect(facts.guarantees.map((g) => g.status)).toEqual(["proven", "proven"]);
  });

  it("mark a later step's input read from an earlier step as untrusted data, and its count as possibly zero", () => {
    const facts = analyzer.analyze(
      program(`    await fetchThenPost({ repo: "https://api.github.com/repos/acme/widgets", payload: "" });`),
    );
    expect(facts.effects.map((e) => [e.op, e.agentAction?.step, e.count])).toEqual([
      ["http.get", "read", { min: 1, max: 1 }],
      ["http.post", "create", { min: 0, max: 1 }],
    ]);
    expect(facts.effects[1]!.args.body).toEqual({
      kind: "unknown",
      provenance: [{ source: "result of http.get", untrusted: true, op: "http.get" }],
    });
    expect(facts.effects[1]!.sources).toMatchObject({
      body: [{ source: "result of http.get", untrusted: true, op: "http.get" }],
      url: [],
    });
  });

  it("refuse a call whose arguments put a step's URL outside the allowlist, at the call", () => {
    const facts = analyzer.analyze(
      program(`    const repo = "x";\n    await fetchThenPost({ repo: "https://evil.example/" + repo, payload: "" });`),
    );
    expect(facts.ok).toBe(false);
    expect(facts.diagnostics).toEqual([
      expect.objectContaining({
        code: "agent_action_refused",
        line: 8,
        column: 11,
        message: expect.stringContaining(
          "agent.fetch_then_post step read calls http.get with url that can never be on a host that connector http may call",
        ),
      }),
    ]);
  });

  it("keep the restrictions of trusted functions: an agent action used as a value is refused", () => {
    const facts = analyzer.analyze(program(`    const f = createIssue;\n    await f({ repo: "a/b", payload: "" });`));
    expect(facts.ok).toBe(false);
    expect(facts.diagnostics[0]!.code).toBe("refused_construct");
  });

  it("cannot be imported without agent manifests", () => {
    const plain = createAnalyzer(withAgent([]), { budget: STEP_BUDGET });
    const facts = plain.analyze(program(`    await createIssue({ repo: "a/b", payload: "" });`));
    expect(facts.ok).toBe(false);
    expect(facts.agentManifests).toBeDefined(); // an empty set is still a set: its receipt binds it
  });
});
