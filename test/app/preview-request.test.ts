import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGmailServer, type GmailServer } from "../../examples/gmail-server/gmail-server.js";
import { createAnalyzer } from "../../src/analyze/index.js";
import { previewRequest, submitRequest, type AppContext } from "../../src/app/index.js";
import { previewArgs } from "../../src/app/preview-args.js";
import { connectorContext, loadPolicy } from "../../src/config/index.js";
import type { Policy } from "../../src/policy/index.js";
import { parseTemplate } from "../../src/manifest/index.js";
import type { AbstractValue } from "../../src/model/index.js";
import { packageRoot } from "../../src/model/paths.js";
import { MemoryRedemptionStore } from "../../src/receipt/index.js";
import { fileKeyStore, openStore } from "../../src/store/index.js";
import { shippedManifests } from "../policy/helpers.js";

const constant = (...values: string[]): AbstractValue => ({ kind: "const", values });
const template = (value: unknown) => parseTemplate(value, []).template;

describe("previewArgs: the values a preview can be fetched with", () => {
  const twoInputs = template({ id: "${args.id}", label: "n-${args.label}", fixed: ["x"] });

  it("every combination of the constants of the inputs the preview reads, and only those inputs", () => {
    const result = previewArgs(
      { id: constant("a", "b"), label: constant("1", "2"), other: { kind: "unknown", provenance: [] } },
      twoInputs,
      8,
    );
    expect(result).toEqual({
      kind: "known",
      sets: [
        { id: "a", label: "1" },
        { id: "a", label: "2" },
        { id: "b", label: "1" },
        { id: "b", label: "2" },
      ],
    });
  });

  it("an input the call leaves out stays out", () => {
    expect(previewArgs({ id: constant("a") }, twoInputs, 8)).toEqual({ kind: "known", sets: [{ id: "a" }] });
  });

  it("an input only known at run time (partly known strings too) names the inputs", () => {
    const partly: AbstractValue = { kind: "string", prefix: "r", suffix: "", provenance: [] };
    expect(previewArgs({ id: partly, label: { kind: "unknown", provenance: [] } }, twoInputs, 8)).toEqual({
      kind: "unknown",
      inputs: ["id", "label"],
    });
  });

  it("more combinations than the limit: counted, none built", () => {
    expect(previewArgs({ id: constant("a", "b", "c"), label: constant("1", "2", "3") }, twoInputs, 8)).toEqual({
      kind: "too_many",
      count: 9,
    });
    expect(previewArgs({ id: constant("a", "b") }, twoInputs, 1)).toEqual({ kind: "too_many", count: 2 });
  });
});

describe("previewRequest over a real store", () => {
  const manifests = shippedManifests();
  const analyzer = createAnalyzer(manifests);
  let gmail: GmailServer;
  beforeAll(async () => {
    gmail = await startGmailServer({ token: "provider-token" });
  });
  afterAll(async () => {
    analyzer.dispose();
    await gmail.close();
  });

  /** A policy folder holding `text` as its one file. */
  const policyOf = (text: string): Policy => {
    const dir = mkdtempSync(join(tmpdir(), "countersign-preview-policy-"));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "default.toml"), text);
    return loadPolicy(dir, { manifests, home: "/home/user" });
  };
  const shippedPolicy = () => readFileSync(join(packageRoot, "policies", "default.toml"), "utf8");

  async function pendingSendDraft(withPreviews: boolean, policy?: () => Policy) {
    const dataDir = mkdtempSync(join(tmpdir(), "countersign-preview-"));
    writeFileSync(join(dataDir, "token"), "provider-token\n");
    writeFileSync(
      join(dataDir, "connections.toml"),
      `[email]\nbase_url = "${gmail.url}"\ntoken_file = "${join(dataDir, "token")}"\n`,
    );
    const store = await openStore({ dataDir });
    const ctx: AppContext = {
      dataDir,
      home: "/home/user",
      issuer: "countersign-test",
      now: () => new Date(),
      manifests: () => manifests,
      policy: policy ?? (() => loadPolicy(join(packageRoot, "policies"), { manifests, home: "/home/user" })),
      analyze: async ({ source, entry }) => analyzer.analyze(source, { entry }),
      keys: fileKeyStore(dataDir),
      redemptions: new MemoryRedemptionStore(() => Date.now()),
      store: async () => store,
      rememberedRules: () => store.listRememberedRules(),
      ...(withPreviews ? { previews: { connector: () => connectorContext(dataDir), timeoutMs: 2_000 } } : {}),
    };
    const { name } = await store.addToken("agent");
    const source = `import { program } from "countersign";
import { sendDraft } from "trusted/email";
export default program({ rationale: "send it", guarantees: [], async main() { await sendDraft({ draft_id: "r404" }); } });
`;
    const { request } = await submitRequest(ctx, { token: name, program: { source, entry: "p.ts" } });
    expect(request.status).toBe("pending");
    return { ctx, store, request };
  }

  it("if the audit entry cannot be written, nothing is shown", async () => {
    const { ctx, store, request } = await pendingSendDraft(true);
    await store.close();
    await expect(previewRequest(ctx, request, "alice")).rejects.toMatchObject({ class: "store_error" });
  });

  // A preview reads with the user's credential: it runs only if the policy allows that read.
  const gets = () => gmail.requests.filter((r) => r.startsWith("GET ")).length;

  it("a read a rule denies: unavailable, naming the rule and its reason; the provider is not asked", async () => {
    const policy = policyOf(`${shippedPolicy()}
[[rules]]
id = "drafts.private"
decision = "deny"
op = "email.get_draft"
when = { args = { id = { eq = "r404" } } }
reason = "that draft is private"
`);
    const { ctx, store, request } = await pendingSendDraft(true, () => policy);
    const before = gets();
    expect(await previewRequest(ctx, request, "alice")).toEqual([
      {
        effect: 0,
        op: "email.send_draft",
        site: request.facts.effects[0]!.site,
        args: { draft_id: "r404" },
        unavailable:
          'Preview unavailable: not allowed by the policy (rule "drafts.private" denies it: that draft is private)',
      },
    ]);
    expect(gets()).toBe(before);
    await store.close();
  });

  it("a read no rule allows (the default asks): unavailable, the provider is not asked", async () => {
    const { ctx, store, request } = await pendingSendDraft(true, () => policyOf('default = "ask"\n'));
    const before = gets();
    expect(await previewRequest(ctx, request, "alice")).toEqual([
      expect.objectContaining({
        unavailable:
          "Preview unavailable: not allowed by the policy (no rule allows email.get_draft with these arguments, and the policy's default is ask)",
      }),
    ]);
    expect(gets()).toBe(before);
    await store.close();
  });

  it("a read an ask rule covers is not allowed either: a preview never waits for a person", async () => {
    const policy = policyOf(`${shippedPolicy()}
[[rules]]
id = "drafts.look-first"
decision = "ask"
op = "email.get_draft"
reason = "drafts are looked at by a person"
`);
    const { ctx, store, request } = await pendingSendDraft(true, () => policy);
    const before = gets();
    expect(await previewRequest(ctx, request, "alice")).toEqual([
      expect.objectContaining({
        unavailable:
          'Preview unavailable: not allowed by the policy (rule "drafts.look-first" asks a person first: drafts are looked at by a person)',
      }),
    ]);
    expect(gets()).toBe(before);
    await store.close();
  });

  it("each showing is decided by the policy in force then", async () => {
    const allowing = policyOf(shippedPolicy());
    const denying = policyOf(`${shippedPolicy()}
[[rules]]
id = "drafts.none"
decision = "deny"
op = "email.get_draft"
reason = "no draft is read"
`);
    let inForce = allowing;
    const { ctx, store, request } = await pendingSendDraft(true, () => inForce);
    let before = gets();
    expect(await previewRequest(ctx, request, "alice")).toEqual([
      expect.objectContaining({ unavailable: expect.stringMatching(/^Preview unavailable: email\.get_draft: .*404/) }),
    ]);
    expect(gets()).toBe(before + 1); // allowed: read (the provider knows no such draft)
    inForce = denying;
    before = gets();
    expect(await previewRequest(ctx, request, "alice")).toEqual([
      expect.objectContaining({ unavailable: expect.stringContaining('rule "drafts.none" denies it') }),
    ]);
    expect(gets()).toBe(before);
    await store.close();
  });

  it("a policy that cannot be read: nothing is fetched", async () => {
    let fail = false;
    const policy = policyOf(shippedPolicy());
    const { ctx, store, request } = await pendingSendDraft(true, () => {
      if (fail) throw new Error("policies/default.toml: unreadable");
      return policy;
    });
    fail = true;
    const before = gets();
    expect(await previewRequest(ctx, request, "alice")).toEqual([
      expect.objectContaining({
        unavailable: "Preview unavailable: the policy in force cannot be read (policies/default.toml: unreadable)",
      }),
    ]);
    expect(gets()).toBe(before);
    await store.close();
  });

  it("a context without a preview host fetches nothing and records nothing", async () => {
    const { ctx, store, request } = await pendingSendDraft(false);
    const before = gmail.requests.length;
    expect(await previewRequest(ctx, request, "alice")).toEqual([]);
    expect(gmail.requests.length).toBe(before);
    const audit = [];
    for await (const entry of store.exportAudit()) audit.push(entry.type);
    expect(audit).not.toContain("preview_shown");
    await store.close();
  });
});
