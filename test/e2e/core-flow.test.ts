// The core chain a later `countersign run` composes: analyze → decide → receipt → wrapper → connector.
// Real parts throughout: the shipped manifests and policy, the real analyzer, Ed25519 receipts,
// the Extism plugins, and a Gmail-shaped server on 127.0.0.1.
import { mkdtempSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGmailServer, type GmailServer } from "../../examples/gmail-server/gmail-server.js";
import { createAnalyzer } from "../../src/analyze/index.js";
import { callWithReceipt, createPluginPool, type ConnectorContext, type PluginPool } from "../../src/connector/index.js";
import { connectorContext, loadManifests, loadPolicy } from "../../src/config/index.js";
import type { ManifestSet } from "../../src/manifest/manifest-set.js";
import type { PolicyDecision } from "../../src/model/decision.js";
import type { Facts } from "../../src/model/facts.js";
import { packageRoot } from "../../src/model/paths.js";
import { decide } from "../../src/policy/index.js";
import { issueReceipt, jwks, MemoryRedemptionStore, startRun, type Keyring } from "../../src/receipt/index.js";
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

let home: string;
let server: GmailServer;
let set: ManifestSet;
let keyring: Keyring;
let ctx: ConnectorContext;
let plugins: PluginPool;
const analyzer = () => createAnalyzer(set);

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "countersign-e2e-"));
  mkdirSync(join(home, "Sandbox"));
  server = await startGmailServer({ token: TOKEN });
  writeFileSync(join(home, "token"), TOKEN, { mode: 0o600 });
  writeFileSync(
    join(home, "connections.toml"),
    `[email]\nbase_url = "${server.url}"\ntoken_file = "${join(home, "token")}"\n\n[fs]\nroots = ["${join(home, "Sandbox")}"]\n`,
  );
  set = loadManifests(join(packageRoot, "manifests"));
  keyring = await openKeyring(home);
  plugins = createPluginPool();
  ctx = connectorContext(home, { plugins });
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
    { requestId: "req-1", program: facts.program, decision: "approved_once", policySha256: decision.policy.sha256, grants: decision.grants, approver: "alice", issuer: ISSUER },
    keyring,
  );
  const store = new MemoryRedemptionStore();
  const verifyOptions = { jwks: jwks(keyring), issuer: ISSUER, programBytes: Buffer.from(source, "utf8") };
  return { token, store, verifyOptions, verified: await startRun(token, verifyOptions, store) };
}

describe("an approved email program", () => {
  it("asks under the default policy, then sends exactly the approved mail and nothing else", async () => {
    const { facts, decision } = analyzeAndDecide(notifyBob);
    expect(facts.ok).toBe(true);
    expect(facts.guarantees.map((g) => g.status)).toEqual(["proven"]);
    expect(decision.kind).toBe("ask");
    const { verified } = await approve(notifyBob, facts, decision);

    const mail = { to: ["bob@example.com"], subject: "Report ready", body: "It is in /reports." };
    await expect(callWithReceipt(verified, set, "email.send_email", { ...mail, to: ["mallory@example.com"] }, ctx)).rejects.toMatchObject({
      class: "grant_violation",
    });
    expect(server.sent).toHaveLength(0);

    await callWithReceipt(verified, set, "email.send_email", mail, ctx);
    expect(server.sent.map((m) => [m.to, m.subject])).toEqual([[["bob@example.com"], "Report ready"]]);

    // The program makes one call: a second one exceeds the approved count.
    await expect(callWithReceipt(verified, set, "email.send_email", mail, ctx)).rejects.toMatchObject({ class: "grant_violation" });
    await expect(callWithReceipt(verified, set, "fs.write_file", { path: join(home, "Sandbox", "x"), content: "" }, ctx)).rejects.toMatchObject({
      class: "grant_violation",
    });
    expect(server.sent).toHaveLength(1);
  });

  it("refuses a replayed receipt and a receipt for other program bytes", async () => {
    const { facts, decision } = analyzeAndDecide(notifyBob);
    const { token, store, verifyOptions } = await approve(notifyBob, facts, decision);
    await expect(startRun(token, verifyOptions, store)).rejects.toMatchObject({ class: "receipt_invalid", details: { reason: "replayed" } });
    const other = Buffer.from(notifyBob.replace("Report ready", "Report ready!"), "utf8"); // one byte more
    await expect(startRun(token, { ...verifyOptions, programBytes: other }, new MemoryRedemptionStore())).rejects.toMatchObject({
      class: "receipt_invalid",
      details: { reason: "program_mismatch" },
    });
  });
});

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
    expect(decision.kind).toBe("ask"); // writing is consequential: the default policy asks
    const { verified } = await approve(source, facts, decision);
    await expect(
      callWithReceipt(verified, set, "fs.write_file", { path: join(home, "Sandbox", "other.md"), content: "All good." }, ctx),
    ).rejects.toMatchObject({ class: "grant_violation" });
    await callWithReceipt(verified, set, "fs.write_file", { path: target, content: "All good." }, ctx);
    expect(readdirSync(join(home, "Sandbox"))).toEqual(["report.md"]);
  });
});
