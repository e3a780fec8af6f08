// The core chain a later `countersign run` composes: analyze → decide → receipt → wrapper → connector.
// Real parts throughout: the shipped manifests and policy, the real analyzer, Ed25519 receipts,
// the Extism plugins, and a Gmail-shaped server on 127.0.0.1.
import { mkdtempSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGmailServer, type GmailServer } from "../../examples/gmail-server/gmail-server.js";
import { createAnalyzer } from "../../src/analyze/index.js";
import {
  callWithReceipt,
  createPluginPool,
  type ConnectorContext,
  type PluginPool,
} from "../../src/connector/index.js";
import { connectorContext, loadManifests, loadPolicy } from "../../src/config/index.js";
import type { ManifestSet } from "../../src/manifest/manifest-set.js";
import type { PolicyDecision } from "../../src/model/decision.js";
import type { Facts } from "../../src/model/facts.js";
import { packageRoot } from "../../src/model/paths.js";
import { decide } from "../../src/policy/index.js";
import {
  issueReceipt,
  jwks,
  MemoryRedemptionStore,
  verifyAndRedeemReceipt,
  type Keyring,
} from "../../src/receipt/index.js";
import { openKeyring } from "../../src/store/index.js";

const ISSUER = "countersign-local";
const TOKEN = "test-token-e2e";

const notifyBob = `import { program } from "countersign";
import { sendEmail } from "trusted/email";
import { recipientsOnly } from "trusted/email/contracts";

export default program({
  rationale: "Tell Bob the weekly report is ready.",
  guarantees: [recipientsOnly(["bob@example.com"])],
  async main() {
    await sendEmail({ to: ["bob@example.com"], subject: "Report ready", body: "It is in /reports." });
  },
});
`;

const writeReport = (home: string, path: string) => `import { program } from "countersign";
import { writeFile } from "trusted/fs";
import { writesUnder } from "trusted/fs/contracts";

export default program({
  rationale: "Save the weekly report.",
  guarantees: [writesUnder(${JSON.stringify(join(home, "Sandbox"))})],
  async main() {
    await writeFile({ path: ${JSON.stringify(path)}, content: "All good." });
  },
});
`;

/** Send mail once: as the approved draft, or else at once; atMostEmails(1) holds across both ops. */
const oneMail = `import { program } from "countersign";
import { draftEmail, sendDraft, sendEmail } from "trusted/email";
import { atMostEmails, recipientsOnly } from "trusted/email/contracts";

export default program({
  rationale: "Send Bob the report, as a draft if the mail API gives one.",
  guarantees: [atMostEmails(1), recipientsOnly(["bob@example.com"])],
  async main() {
    const draft = await draftEmail({ to: ["bob@example.com"], subject: "Report", body: "Attached." });
    if (String(draft.id).startsWith("r")) await sendDraft({ draft_id: String(draft.id) });
    else await sendEmail({ to: ["bob@example.com"], subject: "Report", body: "Attached." });
  },
});
`;

/** A search whose query comes from a file: the URL is known up to the query, which may hold * ? @. */
const search = (topic: string, base: string) => `import { program } from "countersign";
import { readFile } from "trusted/fs";
import { get } from "trusted/http";

export default program({
  rationale: "Look up the topic in my notes.",
  async main() {
    const note = await readFile({ path: ${JSON.stringify(topic)} });
    await get({ url: \`${base}/search?q=\${String(note.content)}&n=*\` });
  },
});
`;

let home: string;
let server: GmailServer;
let set: ManifestSet;
let keyring: Keyring;
let ctx: ConnectorContext;
let plugins: PluginPool;
const analyzer = () => createAnalyzer(set);

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "countersign-e2e-"));
  const data = join(home, ".countersign"); // beside the fs root: a root may not hold countersign's own files
  mkdirSync(join(home, "Sandbox"));
  mkdirSync(data);
  server = await startGmailServer({ token: TOKEN });
  writeFileSync(join(data, "token"), TOKEN, { mode: 0o600 });
  writeFileSync(
    join(data, "connections.toml"),
    `[email]\naddress = "me@example.com"\nbase_url = "${server.url}"\ntoken_file = "${join(data, "token")}"\n\n[fs]\nroots = ["${join(home, "Sandbox")}"]\n`,
  );
  set = loadManifests(join(packageRoot, "manifests"));
  keyring = await openKeyring(data);
  plugins = createPluginPool();
  ctx = connectorContext(data, { plugins });
});

afterAll(async () => {
  await plugins?.close();
  await server?.close();
  rmSync(home, { recursive: true, force: true });
});

function analyzeAndDecide(source: string): { facts: Facts; decision: PolicyDecision } {
  const facts = analyzer().analyze(source);
  const policy = loadPolicy(join(packageRoot, "policies"), { manifests: set, home });
  return { facts, decision: decide(facts, policy, set) };
}

async function approve(source: string, facts: Facts, decision: PolicyDecision) {
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
    },
    keyring,
  );
  const store = new MemoryRedemptionStore();
  const verifyOptions = { jwks: jwks(keyring), issuer: ISSUER, programBytes: Buffer.from(source, "utf8") };
  return { token, store, verifyOptions, verified: await verifyAndRedeemReceipt(token, verifyOptions, store) };
}

describe("an approved email program", () => {
  it("asks under the default policy, then sends exactly the approved mail and nothing else", async () => {
    const { facts, decision } = analyzeAndDecide(notifyBob);
    expect(facts.ok).toBe(true);
    expect(facts.guarantees.map((g) => g.status)).toEqual(["proven"]);
    expect(decision.kind).toBe("ask");
    const { verified } = await approve(notifyBob, facts, decision);

    const mail = { to: ["bob@example.com"], subject: "Report ready", body: "It is in /reports." };
    await expect(
      callWithReceipt(verified, set, "email.send_email", { ...mail, to: ["mallory@example.com"] }, ctx),
    ).rejects.toMatchObject({
      class: "grant_violation",
    });
    expect(server.sent).toHaveLength(0);

    await callWithReceipt(verified, set, "email.send_email", mail, ctx);
    expect(server.sent.map((m) => [m.to, m.subject])).toEqual([[["bob@example.com"], "Report ready"]]);

    // The program makes one call: a second one exceeds the approved count.
    await expect(callWithReceipt(verified, set, "email.send_email", mail, ctx)).rejects.toMatchObject({
      class: "grant_violation",
    });
    await expect(
      callWithReceipt(verified, set, "fs.write_file", { path: join(home, "Sandbox", "x"), content: "" }, ctx),
    ).rejects.toMatchObject({
      class: "grant_violation",
    });
    expect(server.sent).toHaveLength(1);
  });

  it("refuses a replayed receipt and a receipt for other program bytes", async () => {
    const { facts, decision } = analyzeAndDecide(notifyBob);
    const { token, store, verifyOptions } = await approve(notifyBob, facts, decision);
    await expect(verifyAndRedeemReceipt(token, verifyOptions, store)).rejects.toMatchObject({
      class: "receipt_invalid",
      details: { reason: "replayed" },
    });
    const other = Buffer.from(notifyBob.replace("Report ready", "Report ready!"), "utf8"); // one byte more
    await expect(
      verifyAndRedeemReceipt(token, { ...verifyOptions, programBytes: other }, new MemoryRedemptionStore()),
    ).rejects.toMatchObject({
      class: "receipt_invalid",
      details: { reason: "program_mismatch" },
    });
  });
});

describe("one ledger across ops", () => {
  it("atMostEmails(1) over send_draft and send_email: the first mail goes, the second is refused whichever op makes it", async () => {
    const { facts, decision } = analyzeAndDecide(oneMail);
    expect(facts.guarantees.map((g) => g.status)).toEqual(["enforced", "enforced"]);
    expect(decision.kind).toBe("ask");
    const counts = Object.fromEntries(decision.grants.map((g) => [g.op, g.count.max]));
    expect(counts).toEqual({ "email.draft_email": 1, "email.send_draft": 1, "email.send_email": 1 });
    // recipientsOnly lands on send_draft's `to`, which the wrapper reads from the draft before the call.
    expect(decision.grants.find((g) => g.op === "email.send_draft")?.args.to).toEqual({ in: ["bob@example.com"] });
    const { verified } = await approve(oneMail, facts, decision);
    const sent = server.sent.length;
    const draft = (await callWithReceipt(
      verified,
      set,
      "email.draft_email",
      { to: ["bob@example.com"], subject: "Report", body: "Attached." },
      ctx,
    )) as { id: string };
    await callWithReceipt(verified, set, "email.send_draft", { draft_id: draft.id }, ctx);
    await expect(
      callWithReceipt(
        verified,
        set,
        "email.send_email",
        { to: ["bob@example.com"], subject: "Report", body: "Attached." },
        ctx,
      ),
    ).rejects.toMatchObject({ class: "grant_violation", details: { reason: "count_exceeded" } });
    expect(server.sent.slice(sent).map((m) => [m.via, m.to])).toEqual([["draft", ["bob@example.com"]]]);
  });

  it("a limit across two sending ops is one ledger in the receipt", async () => {
    const twoWays = oneMail
      .replace(', recipientsOnly(["bob@example.com"])', "")
      .replace(", recipientsOnly } from", " } from");
    expect(twoWays).toContain("guarantees: [atMostEmails(1)],");
    const { facts, decision } = analyzeAndDecide(twoWays);
    expect(decision.across).toEqual([{ ops: ["email.send_draft", "email.send_email"], count: { max: 1 } }]);
    const { verified } = await approve(twoWays, facts, decision);
    const sent = server.sent.length;
    const draft = (await callWithReceipt(
      verified,
      set,
      "email.draft_email",
      { to: ["bob@example.com"], subject: "Report", body: "Attached." },
      ctx,
    )) as { id: string };
    await callWithReceipt(verified, set, "email.send_draft", { draft_id: draft.id }, ctx);
    const refused = callWithReceipt(
      verified,
      set,
      "email.send_email",
      { to: ["bob@example.com"], subject: "Report", body: "Attached." },
      ctx,
    );
    await expect(refused).rejects.toMatchObject({
      class: "grant_violation",
      details: { reason: "count_exceeded" },
      message: expect.stringContaining("together"),
    });
    expect(server.sent.length).toBe(sent + 1);
  });
});

describe("a URL with a query string", () => {
  it("is pinned to its exact prefix and suffix: the approved search goes out, another path or host does not", async () => {
    const api = await startApi();
    try {
      const dir = realpathSync(mkdtempSync(join(tmpdir(), "countersign-e2e-http-")));
      const topic = join(dir, "topic.txt");
      writeFileSync(topic, "a*b?c@d");
      const data = realpathSync(mkdtempSync(join(tmpdir(), "countersign-e2e-data-"))); // not inside the fs root
      writeFileSync(
        join(data, "connections.toml"),
        `[fs]\nroots = ["${dir}"]\n\n[http]\nhosts = ["127.0.0.1:${api.port}"]\n`,
      );
      const httpCtx = connectorContext(data, { plugins });
      const source = search(topic, api.url);
      const facts = analyzer().analyze(source);
      const policy = loadPolicy(policyWithHost(`127.0.0.1:${api.port}`), { manifests: set, home });
      const decision = decide(facts, policy, set);
      // The host is listed, but the query carries the file's text: a URL from untrusted data is asked about.
      expect(decision.kind).toBe("ask");
      expect(decision.effects.find((e) => e.op === "http.get")).toMatchObject({
        verdict: "ask",
        rule: "http.untrusted-url",
      });
      const url = decision.grants.find((g) => g.op === "http.get")!.args.url;
      expect(url).toEqual({
        all: [{ type: ["string"] }, { all: [{ prefix: `${api.url}/search?q=` }, { suffix: "&n=*" }] }],
      });
      const { verified } = await approve(source, facts, decision);
      const note = (await callWithReceipt(verified, set, "fs.read_file", { path: topic }, httpCtx)) as {
        content: string;
      };
      for (const other of [
        `${api.url}/admin?q=${note.content}&n=*`,
        `${api.url}/search?q=x&n=1`,
        `http://127.0.0.1:${api.port + 1}/search?q=x&n=*`,
      ]) {
        await expect(callWithReceipt(verified, set, "http.get", { url: other }, httpCtx)).rejects.toMatchObject({
          class: "grant_violation",
          details: { reason: "argument_refused", input: "url" },
        });
      }
      expect(api.paths).toEqual([]);
      await callWithReceipt(verified, set, "http.get", { url: `${api.url}/search?q=${note.content}&n=*` }, httpCtx);
      expect(api.paths).toEqual(["/search?q=a*b?c@d&n=*"]);
    } finally {
      await api.close();
    }
  });
});

/** A local API that records the path of every request it gets. */
async function startApi(): Promise<{ url: string; port: number; paths: string[]; close: () => Promise<void> }> {
  const paths: string[] = [];
  const server = createServer((req, res) => {
    paths.push(req.url ?? "");
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    paths,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The shipped policy with `host` as the one listed HTTP host. */
function policyWithHost(host: string): string {
  const dir = mkdtempSync(join(tmpdir(), "countersign-e2e-policy-"));
  const text = readFileSync(join(packageRoot, "policies", "default.toml"), "utf8").replaceAll(
    '"api.example.com"',
    JSON.stringify(host),
  );
  writeFileSync(join(dir, "default.toml"), text);
  return dir;
}

describe("file writes", () => {
  it("a write outside the sandbox is rejected before anyone is asked", () => {
    const { facts, decision } = analyzeAndDecide(writeReport(home, "/etc/passwd"));
    expect(facts.ok).toBe(false); // the program contradicts its own writesUnder guarantee
    expect(decision.kind).toBe("auto_rejected");
  });

  it("an approved write inside the sandbox lands, and only at the approved path", async () => {
    const target = join(home, "Sandbox", "report.md");
    const source = writeReport(home, target);
    const { facts, decision } = analyzeAndDecide(source);
    // A write in the sandbox at a path no untrusted data chose passes without a person (fs.write-in-sandbox).
    expect(decision.kind).toBe("auto_approved");
    const { verified } = await approve(source, facts, decision);
    await expect(
      callWithReceipt(
        verified,
        set,
        "fs.write_file",
        { path: join(home, "Sandbox", "other.md"), content: "All good." },
        ctx,
      ),
    ).rejects.toMatchObject({ class: "grant_violation" });
    await callWithReceipt(verified, set, "fs.write_file", { path: target, content: "All good." }, ctx);
    expect(readdirSync(join(home, "Sandbox"))).toEqual(["report.md"]);
  });
});
