import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAnalyzer } from "../../src/analyze/index.js";
import { allowlistsOf, connectorContext, loadConnections, loadPolicy } from "../../src/config/index.js";
import {
  callAgentAction,
  createPluginPool,
  type ConnectorContext,
  type PluginPool,
} from "../../src/connector/index.js";
import type { ManifestSet } from "../../src/manifest/index.js";
import { CountersignError } from "../../src/model/errors.js";
import type { Facts } from "../../src/model/facts.js";
import { decide } from "../../src/policy/index.js";
import { issueReceipt, jwks, verifyReceipt } from "../../src/receipt/index.js";
import { openKeyring } from "../../src/store/index.js";
import { CREATE_ISSUE, shipped, withAgent } from "../support/agent-manifests.js";
import { localized } from "../support/issue-tracker.js";
import { dataDirWith, tempDir } from "./fixtures.js";

const ISSUER = "countersign-test";
const PROGRAM = `import { program } from "countersign";
import { createIssue } from "trusted/agent";
export default program({
  rationale: "File the bug.",
  async main() {
    await createIssue({ repo: "acme/widgets", payload: '{"title":"Bug"}' });
  },
});
`;

let server: Server;
let seen: { method: string; url: string; body: string }[];
let pool: PluginPool;
let ctx: ConnectorContext;
let set: ManifestSet; // the manifests the person approved
let other: ManifestSet; // the same action name, posting elsewhere on the same host
let facts: Facts;

beforeAll(async () => {
  seen = [];
  server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    seen.push({ method: req.method ?? "", url: req.url ?? "", body });
    res.writeHead(201, { "content-type": "application/json" }).end('{"number":7}');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const dataDir = dataDirWith(`[http]\nhosts = ["${host}"]\n`);
  const allowlists = allowlistsOf(shipped, loadConnections(dataDir));
  const text = CREATE_ISSUE.replace("https://api.github.com/", `http://${host}/`);
  set = withAgent([{ name: "create_issue.toml", text }], allowlists);
  other = withAgent([{ name: "create_issue.toml", text: text.replace("/issues", "/pulls") }], allowlists);
  pool = createPluginPool();
  ctx = connectorContext(dataDir, { plugins: pool });
  facts = createAnalyzer(set).analyze(PROGRAM);
  const policyDir = tempDir("cs-policy-");
  writeFileSync(join(policyDir, "default.toml"), 'default = "ask"\n');
  policy = loadPolicy(policyDir, { manifests: set, home: "/home/me" });
});

afterAll(async () => {
  await pool.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A policy that asks about everything: the person decides. */
let policy: ReturnType<typeof loadPolicy>;

/** A receipt approved by a person for the facts' grants, bound (or not) to the facts' agent manifests. */
async function approve(bind = true): Promise<string> {
  const keys = await openKeyring(tempDir("cs-keys-"));
  const decision = decide(facts, policy, set);
  const token = await issueReceipt(
    {
      requestId: "req-1",
      program: facts.program,
      decision: "approved_once",
      policySha256: decision.policy.sha256,
      grants: decision.grants,
      across: decision.across,
      approver: "alice",
      issuer: ISSUER,
      ...(bind ? { agentManifestsSha256: facts.agentManifests!.sha256 } : {}),
    },
    keys,
  );
  approvedJwks = jwks(keys);
  return token;
}
let approvedJwks: ReturnType<typeof jwks>;

const verify = (token: string, agentManifests: string | undefined) =>
  verifyReceipt(token, {
    jwks: approvedJwks,
    issuer: ISSUER,
    programBytes: new TextEncoder().encode(PROGRAM),
    ...(agentManifests === undefined ? {} : { agentManifests }),
  });

async function refusal(run: () => Promise<unknown>): Promise<{ class: string; reason: unknown; message: string }> {
  try {
    await run();
  } catch (err) {
    if (err instanceof CountersignError) return { class: err.class, reason: err.details?.reason, message: err.message };
    throw err;
  }
  throw new Error("not refused");
}

describe("an agent action under a receipt", () => {
  it("the policy sees the real op and the receipt grants it, bound to the agent manifests", async () => {
    expect(facts.ok).toBe(true);
    expect(facts.effects.map((e) => e.op)).toEqual(["http.post"]);
    expect(decide(facts, policy, set).kind).toBe("ask");
    const token = await approve();
    const claims = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as {
      agent_manifests: unknown;
      grants: { op: string }[];
    };
    expect(claims.agent_manifests).toEqual({ sha256: set.agent!.sha256 });
    expect(claims.grants.map((g) => g.op)).toEqual(["http.post"]);
  });

  it("runs its steps as the trusted calls the person approved", async () => {
    const verified = await verify(await approve(), set.agent!.sha256);
    const before = seen.length;
    const output = await callAgentAction(
      verified,
      set,
      "agent.create_issue",
      { repo: "acme/widgets", payload: '{"title":"Bug"}' },
      ctx,
    );
    expect(output).toMatchObject({ status: 201, body: '{"number":7}' });
    expect(seen.slice(before)).toEqual([
      { method: "POST", url: "/repos/acme/widgets/issues", body: '{"title":"Bug"}' },
    ]);
  });

  it("refuses a step whose arguments leave the grant, before anything is sent", async () => {
    const verified = await verify(await approve(), set.agent!.sha256);
    const before = seen.length;
    expect(
      await refusal(() =>
        callAgentAction(verified, set, "agent.create_issue", { repo: "acme/other", payload: "{}" }, ctx),
      ),
    ).toMatchObject({ class: "grant_violation", reason: "argument_refused" });
    expect(seen.length).toBe(before);
  });

  it("counts each step as a call: a second run of an action approved once is refused at its step, nothing sent", async () => {
    const verified = await verify(await approve(), set.agent!.sha256);
    const args = { repo: "acme/widgets", payload: '{"title":"Bug"}' };
    await callAgentAction(verified, set, "agent.create_issue", args, ctx);
    const before = seen.length;
    expect(await refusal(() => callAgentAction(verified, set, "agent.create_issue", args, ctx))).toMatchObject({
      class: "grant_violation",
      reason: "count_exceeded",
    });
    expect(seen.length).toBe(before);
  });

  it("refuses a receipt replayed with different manifests: at verification, and at the call", async () => {
    const token = await approve();
    expect(await refusal(() => verify(token, other.agent!.sha256))).toMatchObject({
      class: "receipt_invalid",
      reason: "manifests_mismatch",
    });
    expect(await refusal(() => verify(token, undefined))).toMatchObject({
      class: "receipt_invalid",
      reason: "manifests_mismatch",
    });
    const verified = await verify(token, set.agent!.sha256);
    const before = seen.length;
    const refused = await refusal(() =>
      callAgentAction(verified, other, "agent.create_issue", { repo: "acme/widgets", payload: "{}" }, ctx),
    );
    expect(refused).toMatchObject({ class: "grant_violation", reason: "manifests_mismatch" });
    expect(refused.message).toContain(
      `the receipt approves agent manifests ${set.agent!.sha256}, not ${other.agent!.sha256}`,
    );
    expect(seen.length).toBe(before);
  });

  it("refuses an agent action under a receipt that binds no agent manifests", async () => {
    const token = await approve(false);
    expect(await refusal(() => verify(token, set.agent!.sha256))).toMatchObject({
      class: "receipt_invalid",
      reason: "manifests_mismatch",
    });
    const verified = await verify(token, undefined);
    expect(
      await refusal(() =>
        callAgentAction(verified, set, "agent.create_issue", { repo: "acme/widgets", payload: "{}" }, ctx),
      ),
    ).toMatchObject({
      class: "grant_violation",
      reason: "manifests_mismatch",
      message: "agent.create_issue: the receipt approves no agent action",
    });
  });

  it("refuses an unknown agent action and arguments that do not fit its inputs", async () => {
    const verified = await verify(await approve(), set.agent!.sha256);
    expect(await refusal(() => callAgentAction(verified, shipped, "agent.create_issue", {}, ctx))).toMatchObject({
      class: "capability_denied",
    });
    expect(
      await refusal(() => callAgentAction(verified, set, "agent.create_issue", { repo: 1, payload: "{}" }, ctx)),
    ).toMatchObject({ class: "connector_error" });
    expect(await refusal(() => callAgentAction(verified, set, "agent.create_issue", "x", ctx))).toMatchObject({
      class: "grant_violation",
      reason: "not_plain_data",
    });
  });
});

// A step whose URL a provider's answer chooses: the first step reads a page on the listed host, the
// second GETs whatever URL that page holds. The policy cannot know it statically, so the person is
// asked and the receipt holds the step to the listed hosts; at run time the page names a host the
// connections reach but the policy does not list, and the step is refused before it is sent.
describe("an agent action's step whose arguments come from an earlier step's answer", () => {
  let page: Server;
  let sink: Server;
  let sunk: string[];
  let pages = 0;
  const hostOf = (s: Server) => `127.0.0.1:${(s.address() as AddressInfo).port}`;
  const HOP = (host: string) => `name = "hop"
version = "1.0.0"
description = "Follow the link the status page gives."
idempotent = true

[[execute]]
id = "first"
connector = "http"
op = "get"
inputs = { url = "http://${host}/next" }

[[execute]]
id = "second"
connector = "http"
op = "get"
inputs = { url = "\${first.body}" }
`;
  const HOP_PROGRAM = `import { program } from "countersign";
import { hop } from "trusted/agent";
export default program({ rationale: "Follow the link.", async main() { await hop({}); } });
`;

  beforeAll(async () => {
    sunk = [];
    sink = createServer((req, res) => {
      sunk.push(req.url ?? "");
      res.end("{}");
    });
    await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
    page = createServer((_, res) => {
      pages++;
      res.end(`http://${hostOf(sink)}/collect`);
    });
    await new Promise<void>((resolve) => page.listen(0, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    for (const s of [page, sink]) {
      s.closeAllConnections();
      await new Promise((resolve) => s.close(resolve));
    }
  });

  it("is checked against the grant at run time: a host the policy does not list is refused, nothing reaches it", async () => {
    const dataDir = dataDirWith(`[http]\nhosts = ["${hostOf(page)}", "${hostOf(sink)}"]\n`);
    const hopSet = withAgent(
      [{ name: "hop.toml", text: HOP(hostOf(page)) }],
      allowlistsOf(shipped, loadConnections(dataDir)),
    );
    const policyDir = tempDir("cs-policy-");
    writeFileSync(join(policyDir, "default.toml"), localized("policies/default.toml", hostOf(page)));
    const shippedPolicy = loadPolicy(policyDir, { manifests: hopSet, home: "/home/me" });
    const hopFacts = createAnalyzer(hopSet).analyze(HOP_PROGRAM);
    expect(hopFacts.ok).toBe(true);
    const decision = decide(hopFacts, shippedPolicy, hopSet);
    expect(decision.kind).toBe("ask");
    const keys = await openKeyring(tempDir("cs-keys-"));
    const token = await issueReceipt(
      {
        requestId: "req-hop",
        program: hopFacts.program,
        decision: "approved_once",
        policySha256: decision.policy.sha256,
        grants: decision.grants,
        across: decision.across,
        approver: "alice",
        issuer: ISSUER,
        agentManifestsSha256: hopFacts.agentManifests!.sha256,
      },
      keys,
    );
    const verified = await verifyReceipt(token, {
      jwks: jwks(keys),
      issuer: ISSUER,
      programBytes: new TextEncoder().encode(HOP_PROGRAM),
      agentManifests: hopSet.agent!.sha256,
    });
    const hopCtx = connectorContext(dataDir, { plugins: pool });
    const refused = await refusal(() => callAgentAction(verified, hopSet, "agent.hop", {}, hopCtx));
    expect(refused).toMatchObject({ class: "grant_violation", reason: "argument_refused" });
    expect(refused.message).toMatch(/^http\.get: argument "url" is outside its grant/);
    expect(pages).toBe(1); // the first step ran; the second, with the answer's URL, did not
    expect(sunk).toEqual([]);
  });
});

// An optional input passed whole: a call that leaves it out sends the step without that field (the
// trusted op's own default applies), one that passes it sends it; the analysis and the receipt see
// the same two calls.
describe("an agent action with an optional input", () => {
  let notes: Server;
  let got: { type: string | undefined; body: string }[];
  const NOTE = (host: string) => `name = "post_note"
version = "1.0.0"
description = "Post a note."
idempotent = false

[[inputs]]
name = "text"
type = "string"
description = "The note."

[[inputs]]
name = "kind"
type = "string"
required = false
description = "Its content type."

[[execute]]
id = "post"
connector = "http"
op = "post"
inputs = { url = "http://${host}/notes", body = "\${args.text}", content_type = "\${args.kind}" }
`;
  const NOTE_PROGRAM = `import { program } from "countersign";
import { postNote } from "trusted/agent";
export default program({
  rationale: "Post two notes.",
  async main() {
    const first = await postNote({ text: "{}" });
    await postNote({ text: "hi", kind: "text/plain" });
    if (first.status !== 201) throw new Error("not posted");
  },
});
`;

  beforeAll(async () => {
    got = [];
    notes = createServer(async (req, res) => {
      let body = "";
      for await (const chunk of req) body += chunk;
      got.push({ type: req.headers["content-type"], body });
      res.writeHead(201).end("ok");
    });
    await new Promise<void>((resolve) => notes.listen(0, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    notes.closeAllConnections();
    await new Promise((resolve) => notes.close(resolve));
  });

  it("is analysed, granted and run with and without it", async () => {
    const host = `127.0.0.1:${(notes.address() as AddressInfo).port}`;
    const dataDir = dataDirWith(`[http]\nhosts = ["${host}"]\n`);
    const noteSet = withAgent(
      [{ name: "post_note.toml", text: NOTE(host) }],
      allowlistsOf(shipped, loadConnections(dataDir)),
    );
    const noteFacts = createAnalyzer(noteSet).analyze(NOTE_PROGRAM);
    expect(noteFacts.diagnostics).toEqual([]);
    expect(noteFacts.effects.map((e) => Object.keys(e.args).sort())).toEqual([
      ["body", "url"],
      ["body", "content_type", "url"],
    ]);
    const decision = decide(noteFacts, policy, noteSet);
    const keys = await openKeyring(tempDir("cs-keys-"));
    const token = await issueReceipt(
      {
        requestId: "req-note",
        program: noteFacts.program,
        decision: "approved_once",
        policySha256: decision.policy.sha256,
        grants: decision.grants,
        across: decision.across,
        approver: "alice",
        issuer: ISSUER,
        agentManifestsSha256: noteFacts.agentManifests!.sha256,
      },
      keys,
    );
    const verified = await verifyReceipt(token, {
      jwks: jwks(keys),
      issuer: ISSUER,
      programBytes: new TextEncoder().encode(NOTE_PROGRAM),
      agentManifests: noteSet.agent!.sha256,
    });
    const noteCtx = connectorContext(dataDir, { plugins: pool });
    expect(await callAgentAction(verified, noteSet, "agent.post_note", { text: "{}" }, noteCtx)).toEqual({
      status: 201,
      headers: expect.any(Object),
      body: "ok",
    });
    await callAgentAction(verified, noteSet, "agent.post_note", { text: "hi", kind: "text/plain" }, noteCtx);
    expect(got).toEqual([
      { type: "application/json", body: "{}" },
      { type: "text/plain", body: "hi" },
    ]);
    expect(
      await refusal(() => callAgentAction(verified, noteSet, "agent.post_note", { text: "x", kind: 7 }, noteCtx)),
    ).toMatchObject({ class: "connector_error", message: "agent.post_note: input `kind` must be of type string" });
  });
});
