// A program run the way `countersign run` will run it: the real analyzer and policy, an Ed25519
// receipt verified once for the run against the exact bytes, callWithReceipt around every call,
// and the real fs plugin writing into a temp directory.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAnalyzer } from "../../src/analyze/index.js";
import { connectorContext, loadPolicy } from "../../src/config/index.js";
import {
  callWithReceipt,
  createPluginPool,
  type ConnectorContext,
  type PluginPool,
} from "../../src/connector/index.js";
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
import { runProgram } from "../../src/sandbox/index.js";
import { api, set, sha256, texts } from "./helpers.js";

const ISSUER = "countersign-local";

let home: string;
let sandboxDir: string;
let outside: string;
let keyring: Keyring;
let plugins: PluginPool;
let ctx: ConnectorContext;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), "countersign-sandbox-run-"));
  sandboxDir = join(home, "Sandbox");
  outside = join(home, "Outside");
  mkdirSync(sandboxDir);
  mkdirSync(outside);
  const data = join(home, ".countersign"); // beside the fs roots: a root may not hold countersign's own files
  mkdirSync(data);
  writeFileSync(
    join(data, "connections.toml"),
    `[fs]\nroots = [${JSON.stringify(sandboxDir)}, ${JSON.stringify(outside)}]\n`,
  );
  keyring = await openKeyring(data);
  plugins = createPluginPool();
  ctx = connectorContext(data, { plugins });
});

afterAll(async () => {
  await plugins?.close();
  rmSync(home, { recursive: true, force: true });
});

// The copy's path depends on what the listing returns, so writesUnder cannot be proven: it is
// enforced at run time, and the run takes the branch that leaves the directory.
const source = () => `import { program } from "countersign";
import { listDir, writeFile } from "trusted/fs";
import { writesUnder } from "trusted/fs/contracts";

export default program({
  rationale: "Save the report, and a copy where the listing says.",
  guarantees: [writesUnder(${JSON.stringify(sandboxDir)})],
  async main() {
    await writeFile({ path: ${JSON.stringify(join(sandboxDir, "report.md"))}, content: "All good." });
    const listing = await listDir({ path: ${JSON.stringify(sandboxDir)} });
    const entries = listing["entries"];
    const target = Array.isArray(entries) && entries.length > 5 ? ${JSON.stringify(join(sandboxDir, "copy.md"))} : ${JSON.stringify(join(outside, "copy.md"))};
    try {
      await writeFile({ path: target, content: "copy" });
    } catch (e) {
      console.log("not copied: " + String((e as { class: string }).class));
    }
  },
});
`;

async function approve(text: string) {
  const analyzer = createAnalyzer(set);
  const facts = analyzer.analyze(text);
  analyzer.dispose();
  expect(facts.diagnostics).toEqual([]);
  expect(facts.guarantees.map((g) => g.status)).toEqual(["enforced"]);
  const decision = decide(facts, loadPolicy(join(packageRoot, "policies"), { manifests: set, home }), set);
  const token = await issueReceipt(
    {
      requestId: "req-sandbox",
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
  return { token, facts };
}

describe("an approved program in the sandbox", () => {
  it("makes the approved calls, and the call the receipt refuses reaches no connector", async () => {
    const text = source();
    const bytes = Buffer.from(text, "utf8");
    const { token, facts } = await approve(text);
    const verified = await verifyAndRedeemReceipt(
      token,
      { jwks: jwks(keyring), issuer: ISSUER, programBytes: bytes },
      new MemoryRedemptionStore(),
    );

    const result = await runProgram({
      source: bytes,
      sha256: facts.program.sha256,
      entry: facts.program.entry,
      api,
      invoke: (op, args) => callWithReceipt(verified, set, op, args, ctx),
    });

    expect(result.outcome).toBe("returned");
    expect(result.calls.map((c) => [c.op, c.status, c.error?.class])).toEqual([
      ["fs.write_file", "done", undefined],
      ["fs.list_dir", "done", undefined],
      ["fs.write_file", "refused", "grant_violation"],
    ]);
    expect(result.refused).toBe(1);
    expect(texts(result)).toEqual(["not copied: grant_violation"]);
    expect(readFileSync(join(sandboxDir, "report.md"), "utf8")).toBe("All good.");
    expect(existsSync(join(outside, "copy.md"))).toBe(false);
  });

  it("does not run other bytes than the receipt's", async () => {
    const text = source();
    const { facts } = await approve(text);
    const tampered = Buffer.from(text.replace("All good.", "All bad!!"), "utf8");
    expect(sha256(tampered)).not.toBe(facts.program.sha256);
    await expect(
      runProgram({
        source: tampered,
        sha256: facts.program.sha256,
        entry: "program.ts",
        api,
        invoke: () => Promise.reject(new Error("must not be called")),
      }),
    ).rejects.toMatchObject({ class: "hash_mismatch" });
  });
});
