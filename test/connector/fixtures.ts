// Shared test fixtures: the shipped manifests as a ManifestSet, temp data directories with a
// connections.toml, connectors built from test plugins, and a way to run any action.
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { loadManifests } from "../../src/config/index.js";
import type { LoadedAction, LoadedConnector, ManifestSet } from "../../src/manifest/manifest-set.js";
import { parseTemplate } from "../../src/manifest/template.js";
import { ActionManifest, ConnectorManifest } from "../../src/manifest/schema.js";
import { packageRoot } from "../../src/model/paths.js";
import { buildWasm } from "../../scripts/build-connectors.mjs";
import { callWithReceipt } from "../../src/connector/call-with-receipt.js";
import type { ConnectorContext } from "../../src/connector/context.js";
import { createPluginPool, type PluginPool } from "../../src/connector/plugin-pool.js";
import { connectorContext } from "../../src/config/index.js";
import { afterAll, beforeAll } from "vitest";
import { startGmailServer, type GmailServer } from "../../examples/gmail-server/gmail-server.js";
import type { Json } from "../../src/model/json.js";
import { VerifiedReceipt } from "../../src/receipt/verified-receipt.js";

/** The shipped manifests, through the real loader (schemas, cross-file rules and hash pins). */
export function shippedManifests(): ManifestSet {
  return loadManifests(join(packageRoot, "manifests"));
}

export function tempDir(prefix = "cs-conn-"): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

/** A data directory whose connections.toml holds `toml`, plus a token file (referenced as TOKEN_FILE in `toml`). */
export function dataDirWith(toml: string, token = "secret-token"): string {
  const dir = tempDir("cs-home-");
  const tokenFile = join(dir, "token");
  writeFileSync(tokenFile, `${token}\n`);
  writeFileSync(join(dir, "connections.toml"), toml.replaceAll("TOKEN_FILE", tokenFile));
  return dir;
}

/** A copy of `set` with one more connector (and its actions), e.g. a test plugin. */
export function withConnector(set: ManifestSet, connector: LoadedConnector, actions: LoadedAction[] = []): ManifestSet {
  const connectors = new Map(set.connectors);
  connectors.set(connector.name, connector);
  const all = new Map(set.actions);
  for (const a of actions) all.set(a.op, a);
  return { dir: set.dir, connectors, actions: all };
}

/** A connector (and one action per export) for a wasm file, pinned to its current hash. */
export function connectorFor(
  name: string,
  wasmPath: string,
  exports: string[],
): { connector: LoadedConnector; actions: LoadedAction[] } {
  const sha256 = createHash("sha256").update(readFileSync(wasmPath)).digest("hex");
  const connector: LoadedConnector = {
    name,
    file: join(dirname(wasmPath), `${name}.connector.toml`),
    wasmPath,
    manifest: ConnectorManifest.parse({ name, version: "1.0.0", wasm: wasmPath, sha256 }),
  };
  const actions = exports.map((fn) => ({
    op: `${name}.${fn}`,
    connector: name,
    name: fn,
    file: join(dirname(wasmPath), `${fn}.toml`),
    manifest: ActionManifest.parse({
      name: fn,
      version: "1.0.0",
      description: "test",
      idempotent: true,
      execute: [{ id: "run", connector: name, op: fn }],
    }),
    templates: { execute: [parseTemplate({}, []).template], preview: null },
  }));
  return { connector, actions };
}

/**
 * Build a test plugin from test/connector/plugins/<name>.ts into `dir` (as `<name>.wasm`, or
 * `<name>_metered.wasm` with the fuel meter the shipped connectors get; without it, the host
 * stops it with a watchdog, as any plugin not built by the project).
 */
export async function buildTestPlugin(name: string, dir: string, { meter = false } = {}): Promise<string> {
  const out = join(dir, meter ? `${name}_metered.wasm` : `${name}.wasm`);
  await buildWasm(join(packageRoot, "test", "connector", "plugins", `${name}.ts`), out, { meter });
  return out;
}

const anything = new WeakMap<ManifestSet, VerifiedReceipt>();

/**
 * A receipt that grants every action of `set` with any arguments as often as asked, made
 * directly rather than signed (test/receipt covers signing). Each one is a run of its own.
 */
export function anyReceipt(set: ManifestSet): VerifiedReceipt {
  const grants = [...set.actions.values()].map((a) => ({
    op: a.op,
    connector: { name: a.connector, sha256: set.connectors.get(a.connector)!.manifest.sha256 },
    args: {},
    count: { max: null },
  }));
  const claims = {
    iss: "test",
    aud: "countersign-runner",
    sub: "test",
    iat: 0,
    nbf: 0,
    exp: 4_102_444_800,
    jti: "A".repeat(22),
    program: { sha256: "0".repeat(64), entry: "test.ts" },
    decision: "auto_approved" as const,
    policy: { sha256: "0".repeat(64) },
    grants,
    across: [],
  };
  return new VerifiedReceipt("test", claims);
}

/**
 * Run an action the only way there is, through the trusted wrapper, under one receipt per `set`
 * from anyReceipt. The connector tests test connectors.
 */
export function runAction(
  set: ManifestSet,
  op: string,
  args: Record<string, Json>,
  ctx: ConnectorContext,
): Promise<Json> {
  let verified = anything.get(set);
  if (verified === undefined) anything.set(set, (verified = anyReceipt(set)));
  return callWithReceipt(verified, set, op, args, ctx);
}

/**
 * The Gmail-shaped provider and an email connector context against it (with a plugin pool), for
 * the tests of one file: started before them, closed after.
 */
export function gmailConnector(): {
  readonly server: GmailServer;
  readonly ctx: ConnectorContext;
  readonly pool: PluginPool;
} {
  let server: GmailServer | undefined;
  let ctx: ConnectorContext | undefined;
  const pool = createPluginPool();
  beforeAll(async () => {
    server = await startGmailServer({ token: "secret-token" });
    ctx = connectorContext(dataDirWith(`[email]\nbase_url = "${server.url}"\ntoken_file = "TOKEN_FILE"\n`), {
      plugins: pool,
    });
  });
  afterAll(async () => {
    await pool.close();
    await server?.close();
  });
  return {
    get server() {
      return server!;
    },
    get ctx() {
      return ctx!;
    },
    pool,
  };
}
