import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGmailServer, type GmailServer } from "../../examples/gmail-server/gmail-server.js";
import { allowlistsOf, connectorContext, loadConnections } from "../../src/config/index.js";
import type { ConnectorContext } from "../../src/connector/context.js";
import { fetchPreview, type PreviewPolicy } from "../../src/connector/fetch-preview.js";
import { createPluginPool, type PluginPool } from "../../src/connector/plugin-pool.js";
import { checkAgentManifests } from "../../src/manifest/index.js";
import type { ManifestSet } from "../../src/manifest/manifest-set.js";
import { SHIP_DRAFT, withAgent as withAgentManifests } from "../support/agent-manifests.js";
import { dataDirWith, runAction, shippedManifests } from "./fixtures.js";

/** A policy that allows every preview read (the policy itself is test/app's and test/authority's business). */
const ANY: PreviewPolicy = () => null;

const set = shippedManifests();
let gmail: GmailServer;
let odd: Server; // answers drafts.get with whatever the test asks for
let oddAnswer: (res: import("node:http").ServerResponse) => void = () => undefined;
let pool: PluginPool;

const contextFor = (url: string, limits = {}): ConnectorContext =>
  connectorContext(dataDirWith(`[email]\nbase_url = "${url}"\ntoken_file = "TOKEN_FILE"\n`), { plugins: pool, limits });

beforeAll(async () => {
  gmail = await startGmailServer({ token: "secret-token" });
  odd = createServer((_, res) => oddAnswer(res));
  await new Promise<void>((resolve) => odd.listen(0, "127.0.0.1", resolve));
  pool = createPluginPool();
});
afterAll(async () => {
  await pool.close();
  await gmail.close();
  odd.closeAllConnections();
  await new Promise((resolve) => odd.close(resolve));
});

const oddUrl = () => `http://127.0.0.1:${(odd.address() as AddressInfo).port}`;

describe("fetchPreview for email.send_draft", () => {
  it("shows To, Subject and the multiline Body of the draft, with a hash of the preview", async () => {
    const ctx = contextFor(gmail.url);
    const draft = (await runAction(
      set,
      "email.draft_email",
      { to: ["bob@example.com"], subject: "Q3", body: "Numbers\nattached" },
      ctx,
    )) as { id: string };
    const preview = await fetchPreview(set, "email.send_draft", { draft_id: draft.id }, ctx, ANY);
    expect(preview).toEqual({
      ok: true,
      fields: [
        { label: "To", value: "bob@example.com", multiline: false },
        { label: "Subject", value: "Q3", multiline: false },
        { label: "Body", value: "Numbers\nattached", multiline: true },
      ],
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(gmail.sent).toEqual([]); // a preview sends nothing
    const again = await fetchPreview(set, "email.send_draft", { draft_id: draft.id }, ctx, ANY);
    expect(again).toEqual(preview); // same draft, same hash; nothing cached in between
    expect(gmail.requests.filter((r) => r.startsWith("GET")).length).toBe(2);
  });

  it("is unavailable when the provider answers 404", async () => {
    const preview = await fetchPreview(set, "email.send_draft", { draft_id: "r404" }, contextFor(gmail.url), ANY);
    expect(preview).toEqual({
      ok: false,
      reason: "Preview unavailable: email.get_draft: the mail API answered 404",
      fields: [],
    });
  });

  // The provider never answers (the request is held until the server closes), so only the
  // deadline can end these previews; the reason names the deadline that did.
  it("is unavailable when the provider is too slow", async () => {
    oddAnswer = () => undefined;
    const preview = await fetchPreview(
      set,
      "email.send_draft",
      { draft_id: "r1" },
      contextFor(oddUrl(), { timeoutMs: 300 }),
      ANY,
    );
    expect(preview).toEqual({
      ok: false,
      reason: "Preview unavailable: email.get_draft ran longer than 300 ms and was stopped",
      fields: [],
    });
  });

  it("is unavailable when the provider's answer is not JSON", async () => {
    oddAnswer = (res) => res.end("<html>oops</html>");
    const preview = await fetchPreview(set, "email.send_draft", { draft_id: "r1" }, contextFor(oddUrl()), ANY);
    expect(preview).toEqual({
      ok: false,
      reason: "Preview unavailable: email.get_draft: the mail API answered with something other than a JSON object",
      fields: [],
    });
  });

  it("shows n/a for a render path the answer does not have", async () => {
    const ctx = contextFor(gmail.url);
    const draft = (await runAction(
      set,
      "email.draft_email",
      { to: ["bob@example.com"], subject: "S", body: "B" },
      ctx,
    )) as { id: string };
    const sendDraft = set.actions.get("email.send_draft")!;
    const preview = sendDraft.manifest.approval.preview!;
    const changed: ManifestSet = {
      ...set,
      actions: new Map(set.actions).set("email.send_draft", {
        ...sendDraft,
        manifest: {
          ...sendDraft.manifest,
          approval: {
            required: true,
            preview: { ...preview, render: { Cc: "message.payload.headers.Cc", First: "to.0", Nope: "to.7" } },
          },
        },
      }),
    };
    const result = await fetchPreview(changed, "email.send_draft", { draft_id: draft.id }, ctx, ANY);
    expect(result.ok && result.fields).toEqual([
      { label: "Cc", value: "n/a", multiline: false },
      { label: "First", value: "bob@example.com", multiline: false },
      { label: "Nope", value: "n/a", multiline: false },
    ]);
  });

  it("is unavailable for an action without a preview, and for a missing credential", async () => {
    expect(
      await fetchPreview(
        set,
        "email.send_email",
        { to: ["a@b.c"], subject: "s", body: "b" },
        contextFor(gmail.url),
        ANY,
      ),
    ).toEqual({
      ok: false,
      reason: "Preview unavailable: email.send_email declares no preview",
      fields: [],
    });
    const noToken = connectorContext(dataDirWith(`[email]\nbase_url = "${gmail.url}"\n`), { plugins: pool });
    const preview = await fetchPreview(set, "email.send_draft", { draft_id: "r1" }, noToken, ANY);
    expect(preview.ok).toBe(false);
    expect(!preview.ok && preview.reason).toMatch(
      /^Preview unavailable: .*connections\.toml: email\.token_file: missing/,
    );
  });
});

describe("fetchPreview for an agent action", () => {
  // An agent action wrapping send_draft, previewing the draft through the trusted get_draft.
  const withAgent = (): ManifestSet => checkAgentManifests(set, [{ name: "ship_draft.toml", text: SHIP_DRAFT }]).set!;

  it("runs the trusted read its check found, filled from the agent action's own arguments; sends nothing", async () => {
    const ctx = contextFor(gmail.url);
    const draft = (await runAction(
      set,
      "email.draft_email",
      { to: ["erin@example.com"], subject: "S", body: "B" },
      ctx,
    )) as { id: string };
    const agentSet = withAgent();
    expect(agentSet.agent!.actions.get("agent.ship_draft")!.previewOp).toBe("email.get_draft");
    const preview = await fetchPreview(agentSet, "agent.ship_draft", { draft: draft.id }, ctx, ANY);
    expect(preview).toEqual({
      ok: true,
      fields: [{ label: "Recipient", value: "erin@example.com", multiline: false }],
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(gmail.sent).toEqual([]);
  });

  it("a preview target that is not a read without approval is refused before any plugin runs, whatever the set says", async () => {
    const agentSet = withAgent();
    const action = agentSet.agent!.actions.get("agent.ship_draft")!;
    const tampered: ManifestSet = {
      ...agentSet,
      agent: { ...agentSet.agent!, actions: new Map([[action.op, { ...action, previewOp: "email.send_draft" }]]) },
    };
    const before = gmail.requests.length;
    const preview = await fetchPreview(tampered, "agent.ship_draft", { draft: "r1" }, contextFor(gmail.url), ANY);
    expect(preview).toEqual({
      ok: false,
      reason:
        "Preview unavailable: email.send_draft is not a read-only action without approval: it runs only under a receipt",
      fields: [],
    });
    expect(gmail.requests.length).toBe(before);
  });
});

describe("fetchPreview is an effect: it runs only what the policy allowed, through the connections", () => {
  const withAgent = (): ManifestSet => checkAgentManifests(set, [{ name: "ship_draft.toml", text: SHIP_DRAFT }]).set!;

  it("the policy is asked about the exact read that would run (its op, its filled and frozen arguments); a refusal reaches no provider", async () => {
    const asked: [string, unknown, boolean][] = [];
    const refuse: PreviewPolicy = (op, args) => {
      asked.push([op, { ...args }, Object.isFrozen(args)]);
      return 'not allowed by the policy (rule "x" denies it)';
    };
    const before = gmail.requests.length;
    expect(await fetchPreview(withAgent(), "agent.ship_draft", { draft: "r1" }, contextFor(gmail.url), refuse)).toEqual(
      {
        ok: false,
        reason: 'Preview unavailable: not allowed by the policy (rule "x" denies it)',
        fields: [],
      },
    );
    expect(
      await fetchPreview(set, "email.send_draft", { draft_id: "r2" }, contextFor(gmail.url), refuse),
    ).toMatchObject({ ok: false });
    expect(asked).toEqual([
      ["email.get_draft", { id: "r1" }, true],
      ["email.get_draft", { id: "r2" }, true],
    ]);
    expect(gmail.requests.length).toBe(before);
  });

  it("a read the policy allows still goes only to the hosts in the connections", async () => {
    let hits = 0;
    const sink = createServer((_, res) => {
      hits++;
      res.end("{}");
    });
    await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
    try {
      const listed = oddUrl().slice("http://".length);
      const dataDir = dataDirWith(`[http]\nhosts = ["${listed}"]\n`);
      const peek = `name = "peek"
version = "1.0.0"
description = "Read a page."
idempotent = true

[[inputs]]
name = "link"
type = "string"
description = "Any URL."

[[execute]]
id = "get"
connector = "http"
op = "get"
inputs = { url = "http://${listed}/page" }

[approval]
required = false

[approval.preview]
op = "get"
args = { url = "\${args.link}" }
render = { Status = "status" }
`;
      const agentSet = withAgentManifests(
        [{ name: "peek.toml", text: peek }],
        allowlistsOf(set, loadConnections(dataDir)),
        set,
      );
      const link = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/collect`;
      const preview = await fetchPreview(
        agentSet,
        "agent.peek",
        { link },
        connectorContext(dataDir, { plugins: pool }),
        ANY,
      );
      expect(preview).toEqual({
        ok: false,
        reason: `Preview unavailable: http: host ${new URL(link).host} is not in the allowlist`,
        fields: [],
      });
      expect(hits).toBe(0);
    } finally {
      sink.closeAllConnections();
      await new Promise((resolve) => sink.close(resolve));
    }
  });
});
