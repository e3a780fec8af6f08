// The measurements behind bench/sandbox.bench.ts, in plain JavaScript over the built dist/ (a
// child `node` without tsx: tsx's loader hooks would add a thread hop to every dynamic import, and
// Extism's worker cannot start under them).
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { load, measure, measureInTurns, tempDir } from "./sandbox-measure-kit.mjs";

const { createAnalyzer } = await load("analyze/index.js");
const { connectorContext, loadManifests, loadPolicy } = await load("config/index.js");
const { callWithReceipt, createPluginPool } = await load("connector/index.js");
const { decide } = await load("policy/index.js");
const { issueReceipt, jwks, MemoryRedemptionStore, verifyAndRedeemReceipt } = await load("receipt/index.js");
const { openKeyring } = await load("store/index.js");
const { prepareRun, runProgram, sandboxApi } = await load("sandbox/index.js");
const { newQuickJS } = await load("sandbox/quickjs.js");
const { lockDown } = await load("sandbox/lockdown.js");
const { programSource } = await load("sandbox/program-source.js");

const pkg = new URL("../", import.meta.url).pathname;
const home = tempDir("cs-bench-sandbox-");
// The folder programs list, beside the data directory (home), which no fs root may hold or lie in.
const files = tempDir("cs-bench-files-");
for (const name of ["a.txt", "b.txt", "c.txt"]) writeFileSync(join(files, name), name);
writeFileSync(join(home, "connections.toml"), `[fs]\nroots = ["${files}"]\n`);
const set = loadManifests(join(pkg, "manifests"));
const api = sandboxApi(set);
const CALLS = 20;

const program = (calls) => `import { program } from "countersign";
import { listDir } from "trusted/fs";

export default program({
  rationale: "List the directory ${calls} times.",
  guarantees: [],
  async main() {
    for (let i = 0; i < ${calls}; i++) {
      const listing = await listDir({ path: ${JSON.stringify(files)} });
      if (listing["path"] !== ${JSON.stringify(files)}) throw new Error("unexpected listing");
    }
  },
});
`;

const sha256 = (bytes) => createHash("sha256").update(bytes).digest("hex");

// A receipt for the program with CALLS calls, approved as the user would; one per run (a run redeems it).
const analyzer = createAnalyzer(set);
const text = program(CALLS);
const bytes = Buffer.from(text, "utf8");
const facts = analyzer.analyze(text);
analyzer.dispose(); // a runner does not analyze: its heap holds the compiler, not a checked program
if (!facts.ok) throw new Error(`bench program refused: ${JSON.stringify(facts.diagnostics)}`);
const decision = decide(facts, loadPolicy(join(pkg, "policies"), { manifests: set, home }), set);
const keyring = await openKeyring(home);
let n = 0;
async function verifiedReceipt() {
  const token = await issueReceipt(
    {
      requestId: `bench-${n++}`,
      program: facts.program,
      decision: "approved_once",
      policySha256: decision.policy.sha256,
      grants: decision.grants,
      across: decision.across,
      approver: "bench",
      issuer: "bench",
    },
    keyring,
  );
  return verifyAndRedeemReceipt(
    token,
    { jwks: jwks(keyring), issuer: "bench", programBytes: bytes },
    new MemoryRedemptionStore(),
  );
}

const plugins = createPluginPool();
const ctx = connectorContext(home, { plugins });
const args = { path: files };
const r = {};

// Warm up every path once (JIT, the plugin's worker, the transpile cache for the bench programs).
for (const calls of [0, CALLS]) {
  const warm = Buffer.from(program(calls));
  await runProgram({ source: warm, sha256: sha256(warm), entry: "p.ts", api, invoke: async () => ({ path: files }) });
}
const warmReceipt = await verifiedReceipt();
await callWithReceipt(warmReceipt, set, "fs.list_dir", args, ctx);

// Baseline: the same calls made directly by the host, each through the receipt check and the pooled plugin.
// Each sample of either side starts after the process was idle for a moment, as a run does: the
// plugin worker makes the run's fresh instance ahead for both alike. The sandbox side as
// \`countersign run\` can do it: the program's realm is made (prepareRun) while the run waits for
// its approval, here in the idle time before each sample; and cold, without. The variants are
// measured in turns (see measureInTurns).
const SAMPLES = 41;
const idle = () => new Promise((resolve) => setTimeout(resolve, 20));
const prepared = (source, sha) => () => {
  prepareRun({ source, sha256: sha, entry: "p.ts", api });
  return idle();
};
const receipts = [];
for (let i = 0; i < 3 * SAMPLES; i++) receipts.push(await verifiedReceipt());
const sandboxRun = async () => {
  const verified = receipts.pop();
  const result = await runProgram({
    source: bytes,
    sha256: facts.program.sha256,
    entry: "p.ts",
    api,
    invoke: (op, a) => callWithReceipt(verified, set, op, a, ctx),
  });
  if (result.outcome !== "returned" || result.calls.length !== CALLS)
    throw new Error(`bench run failed: ${JSON.stringify(result)}`);
};
// The sandbox alone: an empty main, and the hop per call with an invoke that answers at once.
const empty = Buffer.from(program(0));
const emptySha = sha256(empty);
const instant = async () => ({ path: files });
Object.assign(
  r,
  await measureInTurns(
    {
      directRun: {
        before: idle,
        run: async () => {
          const verified = receipts.pop();
          for (let i = 0; i < CALLS; i++) await callWithReceipt(verified, set, "fs.list_dir", args, ctx);
        },
      },
      sandboxRun: { before: prepared(bytes, facts.program.sha256), run: sandboxRun },
      sandboxRunCold: { before: idle, run: sandboxRun },
      emptyRun: {
        before: prepared(empty, emptySha),
        run: () => runProgram({ source: empty, sha256: emptySha, entry: "p.ts", api, invoke: instant }),
      },
      emptyRunCold: {
        before: idle,
        run: () => runProgram({ source: empty, sha256: emptySha, entry: "p.ts", api, invoke: instant }),
      },
      hopRun: {
        before: prepared(bytes, facts.program.sha256),
        run: () => runProgram({ source: bytes, sha256: facts.program.sha256, entry: "p.ts", api, invoke: instant }),
      },
    },
    { samples: SAMPLES },
  ),
);

// Parts of a run's setup.
r.instance = await measure(async () => {
  const quickjs = await newQuickJS(64 << 20);
  quickjs.module.newRuntime().dispose();
  quickjs.release();
});
// Each context with the host's console in place, as a run has it when its lockdown starts.
const contexts = [];
for (let i = 0; i < 21; i++) {
  const vm = (await newQuickJS(64 << 20)).module.newContext();
  const console = vm.newObject();
  for (const key of ["log", "error"]) vm.newFunction(key, () => {}).consume((fn) => vm.setProp(console, key, fn));
  vm.setProp(vm.global, "console", console);
  console.dispose();
  contexts.push(vm);
}
r.lockdown = await measure(() => lockDown(contexts.pop()));
let fresh = 0;
r.transpile = await measure(() => {
  const unique = Buffer.from(`${text}// ${fresh++}\n`);
  programSource(unique, sha256(unique), "p.ts");
});

await plugins.close();
r.calls = CALLS;
process.stdout.write(JSON.stringify(r));
process.exit(0);
