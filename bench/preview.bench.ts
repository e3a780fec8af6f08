// Previews at approval time: what one showing of a pending request costs the approver's view
// (previewRequest: plan, a plugin loaded per preview, the provider's answer, the audit entry),
// for one draft and for the most one showing fetches, next to fetching the same draft from the
// same local Gmail-shaped provider with plain fetch in the same run.
import { mkdtempSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { startGmailServer } from "../examples/gmail-server/gmail-server.js";
import { createAnalyzer } from "../src/analyze/index.js";
import { MAX_PREVIEWS, previewRequest, submitRequest, type AppContext } from "../src/app/index.js";
import { connectorContext, loadManifests, loadPolicy } from "../src/config/index.js";
import { createPluginPool, fetchPreview } from "../src/connector/index.js";
import { packageRoot } from "../src/model/paths.js";
import { MemoryRedemptionStore } from "../src/receipt/index.js";
import { fileKeyStore, openStore } from "../src/store/index.js";
import { measure, table, writeSection } from "./report.js";

const TOKEN = "bench-token";
const gmail = await startGmailServer({ token: TOKEN });
const dataDir = mkdtempSync(join(tmpdir(), "countersign-preview-bench-"));
writeFileSync(join(dataDir, "token"), `${TOKEN}\n`);
writeFileSync(
  join(dataDir, "connections.toml"),
  `[email]\nbase_url = "${gmail.url}"\ntoken_file = "${join(dataDir, "token")}"\n`,
);
const manifests = loadManifests(join(packageRoot, "manifests"));
const policy = loadPolicy(join(packageRoot, "policies"), { manifests, home: "/home/user" });
const analyzer = createAnalyzer(manifests);
const store = await openStore({ dataDir });
const ctx: AppContext = {
  dataDir,
  home: "/home/user",
  issuer: "countersign-bench",
  now: () => new Date(),
  manifests: () => manifests,
  policy: () => policy,
  analyze: async ({ source, entry }) => analyzer.analyze(source, { entry }),
  keys: fileKeyStore(dataDir),
  redemptions: new MemoryRedemptionStore(() => Date.now()),
  store: async () => store,
  rememberedRules: () => store.listRememberedRules(),
  previews: { connector: () => connectorContext(dataDir), timeoutMs: 5_000 },
};
const { name } = await store.addToken("agent");

async function createDraft(i: number): Promise<string> {
  const raw = Buffer.from(`To: bob@example.com\r\nSubject: Draft ${i}\r\n\r\nBody of draft ${i}\n`).toString(
    "base64url",
  );
  const answer = await fetch(`${gmail.url}/gmail/v1/users/me/drafts`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ message: { raw } }),
  });
  return ((await answer.json()) as { id: string }).id;
}

/** A pending request whose one send_draft call site may send any of `ids`. */
async function pendingFor(ids: string[]) {
  const source = `import { program } from "countersign";
import { sendDraft } from "trusted/email";
export default program({ rationale: "send", guarantees: [], async main() { for (const id of ${JSON.stringify(ids)}) await sendDraft({ draft_id: id }); } });
`;
  const { request } = await submitRequest(ctx, { token: name, program: { source, entry: "bench.ts" } });
  if (request.status !== "pending") throw new Error(`expected a pending request, got ${request.status}`);
  return request;
}

const ids = await Promise.all(Array.from({ length: MAX_PREVIEWS }, (_, i) => createDraft(i)));
const one = await pendingFor(ids.slice(0, 1));
const most = await pendingFor(ids);
const check = await previewRequest(ctx, most, "bench");
if (check.length !== MAX_PREVIEWS || check.some((p) => !("fields" in p)))
  throw new Error(`previews failed: ${JSON.stringify(check)}`);

const direct = await measure(async () => {
  const answer = await fetch(`${gmail.url}/gmail/v1/users/me/drafts/${ids[0]}`, {
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  await answer.json();
});
const showOne = await measure(() => previewRequest(ctx, one, "bench"));
const showMost = await measure(() => previewRequest(ctx, most, "bench"), { samples: 9 });
const pool = createPluginPool();
const pooledCtx = { ...connectorContext(dataDir), plugins: pool };
const pooled = await measure(
  () => fetchPreview(manifests, "email.send_draft", { draft_id: ids[0]! }, pooledCtx, () => null),
  { samples: 30 },
);
await pool.close();

const ms = (x: number) => `${x.toFixed(2)} ms`;
const body = `${table([
  ["what", "median", "vs baseline"],
  ["baseline: GET the draft from the provider with fetch", ms(direct), "1.0×"],
  [
    "one showing, 1 preview (plugin loaded, called, closed; audit entry)",
    ms(showOne),
    `${(showOne / direct).toFixed(1)}×`,
  ],
  [`one showing, ${MAX_PREVIEWS} previews side by side`, ms(showMost), `${(showMost / direct).toFixed(1)}×`],
  ["for comparison: one preview through a loaded (pooled) plugin", ms(pooled), `${(pooled / direct).toFixed(1)}×`],
])}

Each showing loads a plugin per preview (no pool) so that previews run side by side and a hung
provider delays no other (a pool runs one call at a time per connector): the difference between
the first and the last row is what starting a plugin worker costs, and on two cores the workers of
${MAX_PREVIEWS} previews start largely one after another. The machine is shared: 1-minute load
average ${loadavg()[0]!.toFixed(1)} when the run ended.`;
writeSection("preview", "Previews at approval time", body);
process.stdout.write(body + "\n");
analyzer.dispose();
await store.close();
await gmail.close();
