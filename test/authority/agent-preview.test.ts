// An agent action's [approval.preview] at approval time, against a real authority on 127.0.0.1
// (SQLite), the real http plugin and the loopback issue tracker: run like a trusted action's
// preview (fetched for every showing, bounded, hashed in the audit, never on a submitter's route),
// filled from the call's own arguments, with the agent manifests kept with the request — after a
// restart of the authority too, where the terminal approver also shows those manifests.
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApproverClient } from "../../src/cli/approve/approver-client.js";
import { requestLines } from "../../src/cli/approve/request-view.js";
import { canonicalJson } from "../../src/constraint/index.js";
import { PreviewShown } from "../../src/model/index.js";
import { allowTracker, localized, startIssueTracker, type IssueTracker } from "../support/issue-tracker.js";
import { startTestAuthority, type ApproverSession, type TestAuthority } from "./harness.js";

let tracker: IssueTracker;
let a: TestAuthority;
let alice: ApproverSession;
let dataDir: string;

/** create_issue.toml with a preview: the repository as the tracker answers a GET of it. */
const manifest = () => ({
  name: "create_issue.toml",
  text: `${localized("examples/agent-manifests/create_issue.toml", tracker.host)}
[approval]
required = false

[approval.preview]
op = "get"
args = { url = "http://${tracker.host}/repos/\${args.repo}" }
render = { Status = "status", Repository = "body" }
`,
});

/** file-issue.ts, with the repository given as `repo` (an expression). */
const program = (repo = '"acme/widgets"') =>
  localized("examples/file-issue.ts", tracker.host).replace('repo: "acme/widgets"', `repo: ${repo}`);

const submit = async (source: string) => {
  const answer = await a.call("POST", "/v1/requests", {
    body: { program: source, source_name: "file-issue.ts", manifests: [manifest()] },
  });
  expect(answer.status).toBe(202);
  return answer.body.id as string;
};
const review = (id: string) => a.call("GET", `/v1/requests/${id}`, { session: alice });
const gets = () => tracker.received.filter((r) => r.method === "GET");
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

beforeAll(async () => {
  tracker = await startIssueTracker();
  dataDir = join(mkdtempSync(join(tmpdir(), "countersign-agent-preview-")), "data");
  allowTracker(dataDir, tracker.host);
  a = await startTestAuthority("sqlite", { dataDir, previewTimeoutMs: 3_000 });
  alice = await a.login("alice");
});
afterAll(async () => {
  await a?.close();
  await tracker?.close();
});

describe("an agent action's preview at approval time", () => {
  it("is fetched for every showing with the call's arguments, shown as the agent action's, and audited by hash", async () => {
    const id = await submit(program());
    const before = gets().length;
    const first = await review(id);
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("no-store");
    expect(first.body.previews).toEqual([
      {
        effect: 0,
        op: "agent.create_issue",
        site: expect.objectContaining({ line: expect.any(Number) }),
        args: { repo: "acme/widgets" },
        // In the canonical form's order (keys sorted), as the request kept the manifest.
        fields: [
          { label: "Repository", value: expect.stringMatching(/^\{"number":\d+\}$/), multiline: false },
          { label: "Status", value: "201", multiline: false },
        ],
      },
    ]);
    for (const shown of first.body.previews) expect(PreviewShown.safeParse(shown).success).toBe(true);
    expect(
      gets()
        .slice(before)
        .map((r) => r.url),
    ).toEqual(["/repos/acme/widgets"]); // the preview's GET, filled from the call's repo
    expect(tracker.received.filter((r) => r.method === "POST")).toEqual([]); // a preview makes no step's call

    const second = await review(id);
    expect(gets().length).toBe(before + 2); // never cached
    const audit = String((await a.call("GET", "/v1/audit", { session: alice })).body)
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line))
      .filter((e) => e.request_id === id && e.type === "preview_shown");
    expect(audit.map((e) => e.details.preview_sha256)).toEqual([
      sha256(canonicalJson(first.body.previews)),
      sha256(canonicalJson(second.body.previews)),
    ]);
  });

  it("never shows the preview on a route the submitter can read", async () => {
    const id = await submit(program());
    expect((await review(id)).body.previews).toHaveLength(1);
    for (const path of [`/v1/requests/${id}`, `/v1/requests/${id}/decision?wait=0`]) {
      const text = JSON.stringify((await a.call("GET", path)).body);
      expect(text).not.toContain("previews");
      expect(text).not.toContain('"number"');
    }
  });

  it("an argument only known when the program runs: unavailable, nothing fetched", async () => {
    const id = await submit(program("String(Date.now())"));
    const before = gets().length;
    expect((await review(id)).body.previews).toEqual([
      expect.objectContaining({
        op: "agent.create_issue",
        args: {},
        unavailable: "Preview unavailable: the program's value for repo is only known when it runs",
      }),
    ]);
    expect(gets().length).toBe(before);
  });

  it("manifests that no longer pass with the connections in force: unavailable with why, nothing fetched", async () => {
    const id = await submit(program());
    const connections = join(dataDir, "connections.toml");
    const kept = readFileSync(connections, "utf8");
    writeFileSync(connections, '[http]\nhosts = ["example.org:443"]\n');
    try {
      const before = gets().length;
      expect((await review(id)).body.previews).toEqual([
        expect.objectContaining({
          op: "agent.create_issue",
          unavailable: expect.stringMatching(
            /^Preview unavailable: the agent manifests no longer pass the checks with the manifests and connections in force \(create_issue\.toml execute\[0\]\.inputs\.url/,
          ),
        }),
      ]);
      expect(gets().length).toBe(before);
    } finally {
      writeFileSync(connections, kept);
    }
  });

  it("after a restart, from the manifests the store kept (the agent is not asked again)", async () => {
    const id = await submit(program('"acme/gears"'));
    await a.close();
    a = await startTestAuthority("sqlite", { dataDir, database: a.database, previewTimeoutMs: 3_000 });
    alice = await a.login("alice");
    const before = gets().length;
    const shown = await review(id);
    expect(shown.body.previews).toEqual([
      expect.objectContaining({ op: "agent.create_issue", args: { repo: "acme/gears" }, fields: expect.any(Array) }),
    ]);
    expect(
      gets()
        .slice(before)
        .map((r) => r.url),
    ).toEqual(["/repos/acme/gears"]);

    // The terminal approver reads the same manifests from the restarted authority: the steps as facts, the description as the agent's words.
    const page = await new ApproverClient({ url: a.url, dataDir, approver: "alice" }).page(id);
    expect(page.agent_manifests).toMatchObject({
      actions: [
        {
          op: "agent.create_issue",
          steps: [
            {
              op: "http.post",
              calls: [
                {
                  args: expect.arrayContaining([
                    { name: "url", value: expect.stringContaining("/repos/acme/gears/issues") },
                  ]),
                },
              ],
            },
          ],
        },
      ],
    });
    const lines = requestLines(page, { now: Date.now(), showSource: false });
    expect(lines.filter((l) => l.style === "agent").map((l) => l.text)).toContain(
      "Open an issue in a repository of the example issue tracker.",
    );
  });
});

// A preview is an effect made with the user's credential: an agent action whose preview reads a
// URL the call passes must not make the authority fetch a host the policy denies, merely because
// a person opened the request. The sink is in the connections (the connector could reach it),
// not in the policy's host list.
describe("an agent action's preview the policy does not allow", () => {
  let sink: IssueTracker;
  let kept: string;
  const connections = () => join(dataDir, "connections.toml");
  const policyFile = () => join(dataDir, "policies", "default.toml");

  /** create_issue.toml with an input `link` that only its preview reads, as a URL. */
  const peeking = () => ({
    name: "create_issue.toml",
    text: `${localized("examples/agent-manifests/create_issue.toml", tracker.host)}
[[inputs]]
name = "link"
type = "string"
description = "A page about the issue."

[approval]
required = false

[approval.preview]
op = "get"
args = { url = "\${args.link}" }
render = { Status = "status", Page = "body" }
`,
  });
  const submitPeek = async (link: string) => {
    const source = program().replace('repo: "acme/widgets"', `repo: "acme/widgets", link: ${JSON.stringify(link)}`);
    const answer = await a.call("POST", "/v1/requests", {
      body: { program: source, source_name: "file-issue.ts", manifests: [peeking()] },
    });
    expect(answer.status).toBe(202);
    expect(answer.body.status).toBe("pending");
    return answer.body.id as string;
  };
  /** What both approval surfaces show: the view model, the browser page's text and the terminal approver's lines. */
  const surfaces = async (id: string) => {
    const data = await a.call("GET", `/v1/requests/${id}/page`, { session: alice });
    expect(data.status).toBe(200);
    const html = String((await a.call("GET", `/requests/${id}`, { session: alice })).body);
    const page = await new ApproverClient({ url: a.url, dataDir, approver: "alice" }).page(id);
    const terminal = requestLines(page, { now: Date.now(), showSource: false })
      .map((l) => l.text)
      .join("\n");
    return { previews: data.body.previews as { op: string; unavailable?: string; fields?: unknown }[], html, terminal };
  };

  beforeAll(async () => {
    sink = await startIssueTracker();
    kept = readFileSync(connections(), "utf8");
    writeFileSync(connections(), `[http]\nhosts = ["${tracker.host}", "${sink.host}"]\n`);
  });
  afterAll(async () => {
    writeFileSync(connections(), kept);
    await sink?.close();
  });

  it("a URL on a host the policy denies: nothing reaches it, and both surfaces say why, naming the rule", async () => {
    const id = await submitPeek(`http://${sink.host}/collect?from=countersign`);
    const { previews, html, terminal } = await surfaces(id);
    const why =
      'Preview unavailable: not allowed by the policy (rule "http.unlisted-host" denies it: HTTP requests may only go to the hosts listed in the policy)';
    expect(previews).toEqual([{ op: "agent.create_issue", line: expect.any(Number), unavailable: why }]);
    expect(html).toContain(why.replaceAll('"', "&quot;"));
    expect(terminal).toContain(why);
    expect((await review(id)).body.previews).toEqual([
      expect.objectContaining({ args: { link: `http://${sink.host}/collect?from=countersign` }, unavailable: why }),
    ]);
    expect(sink.received).toEqual([]);
  });

  it("a URL the policy allows still shows, from the provider", async () => {
    const id = await submitPeek(`http://${tracker.host}/repos/acme/widgets`);
    const before = gets().length;
    const sunk = sink.received.length;
    const { previews, terminal } = await surfaces(id);
    expect(previews).toEqual([
      {
        op: "agent.create_issue",
        line: expect.any(Number),
        fields: [expect.objectContaining({ label: "Page" }), { label: "Status", value: "201", multiline: false }],
      },
    ]);
    expect(terminal).toContain("201");
    expect(
      gets()
        .slice(before)
        .map((r) => r.url),
    ).toEqual(["/repos/acme/widgets", "/repos/acme/widgets", "/repos/acme/widgets"]); // the view model, the page, the terminal
    expect(sink.received.length).toBe(sunk);
  });

  it("is decided by the policy in force when it is shown: a reload that lists the host takes effect at once, and one that drops it too", async () => {
    const id = await submitPeek(`http://${sink.host}/collect`);
    sink.received.length = 0;
    const policy = readFileSync(policyFile(), "utf8");
    try {
      writeFileSync(
        policyFile(),
        policy.replaceAll(`host_in = ["${tracker.host}"]`, `host_in = ["${tracker.host}", "${sink.host}"]`),
      );
      expect((await a.call("POST", "/v1/reload", { session: alice, body: {} })).body).toMatchObject({ ok: true });
      expect((await review(id)).body.previews).toEqual([
        expect.objectContaining({
          fields: expect.arrayContaining([{ label: "Status", value: "201", multiline: false }]),
        }),
      ]);
      expect(sink.received.map((r) => `${r.method} ${r.url}`)).toEqual(["GET /collect"]);
    } finally {
      writeFileSync(policyFile(), policy);
      expect((await a.call("POST", "/v1/reload", { session: alice, body: {} })).body).toMatchObject({ ok: true });
    }
    expect((await review(id)).body.previews).toEqual([
      expect.objectContaining({ unavailable: expect.stringContaining('rule "http.unlisted-host" denies it') }),
    ]);
    expect(sink.received).toHaveLength(1);
    sink.received.length = 0;
  });
});
