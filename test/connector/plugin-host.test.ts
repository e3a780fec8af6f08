import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGmailServer, type GmailServer } from "../../examples/gmail-server/gmail-server.js";
import { connectorContext } from "../../src/config/index.js";
import type { ConnectorContext } from "../../src/connector/context.js";
import { declaredMemoryPages } from "../../src/connector/declared-memory.js";
import { createPluginPool } from "../../src/connector/plugin-pool.js";
import { wasm } from "../../src/model/wasm.js";
import type { ManifestSet } from "../../src/manifest/manifest-set.js";
import {
  buildTestPlugin,
  connectorFor,
  dataDirWith,
  runAction,
  shippedManifests,
  tempDir,
  withConnector,
} from "./fixtures.js";

const shipped = shippedManifests();
let gmail: GmailServer;
let home: string;
let plugins: string;

beforeAll(async () => {
  gmail = await startGmailServer({ token: "secret-token" });
  home = dataDirWith(`[email]\nbase_url = "${gmail.url}"\ntoken_file = "TOKEN_FILE"\n`);
  plugins = tempDir("cs-plugins-");
  await Promise.all([buildTestPlugin("spin", plugins), buildTestPlugin("hog", plugins)]);
}, 60_000);
afterAll(() => gmail.close());

const ctxFor = (limits = {}): ConnectorContext => connectorContext(home, { limits });

function testSet(name: string): ManifestSet {
  const { connector, actions } = connectorFor(name, join(plugins, `${name}.wasm`), [name]);
  return withConnector(shipped, connector, actions);
}

describe("loading a plugin", () => {
  it("refuses a tampered .wasm with hash_mismatch, and nothing runs", async () => {
    const email = shipped.connectors.get("email")!;
    const tampered = join(tempDir(), "email.wasm");
    copyFileSync(email.wasmPath, tampered);
    writeFileSync(tampered, Buffer.from([0, 2, 1, 120]), { flag: "a" }); // a custom section: still a valid module
    const set = withConnector(shipped, { ...email, wasmPath: tampered });
    await expect(
      runAction(set, "email.send_email", { to: ["bob@example.com"], subject: "s", body: "b" }, ctxFor()),
    ).rejects.toMatchObject({
      class: "hash_mismatch",
      details: { expected: email.manifest.sha256, actual: expect.not.stringMatching(email.manifest.sha256) },
    });
    expect(gmail.requests).toEqual([]);
  });

  it("refuses a module whose memory has no declared maximum, or too large a one", async () => {
    const noMax = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 5, 3, 1, 0, 1]);
    const max300 = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 5, 5, 1, 1, 1, 0xac, 0x02]);
    const noMemory = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]);
    expect(declaredMemoryPages(await wasm.compile(noMax), noMax)).toBeNull();
    expect(declaredMemoryPages(await wasm.compile(max300), max300)).toBe(300);
    expect(declaredMemoryPages(await wasm.compile(noMemory), noMemory)).toBe(0);
    const shippedBytes = new Uint8Array(readFileSync(shipped.connectors.get("email")!.wasmPath));
    expect(declaredMemoryPages(await wasm.compile(shippedBytes), shippedBytes)).toBe(256);

    const file = join(tempDir(), "nomax.wasm");
    writeFileSync(file, noMax);
    const { connector, actions } = connectorFor("nomax", file, ["run"]);
    await expect(
      runAction(withConnector(shipped, connector, actions), "nomax.run", {}, ctxFor()),
    ).rejects.toMatchObject({
      class: "resource_limit_exceeded",
      message: "nomax: the module must declare a maximum memory of at most 256 pages (declares none)",
    });
  });

  it("refuses a module importing what the host does not provide, Extism's own http_request included", async () => {
    const enc = (text: string) => [text.length, ...Buffer.from(text)];
    for (const [module, name] of [
      ["env", "abort"],
      ["extism:host/env", "http_request"],
      ["extism:host/user", "exec"],
    ] as const) {
      const payload = [1, ...enc(module), ...enc(name), 0, 0];
      const file = join(tempDir(), "imports.wasm");
      writeFileSync(
        file,
        Uint8Array.from([0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 0x60, 0, 0, 2, payload.length, ...payload]),
      );
      const { connector, actions } = connectorFor("imports", file, ["run"]);
      await expect(
        runAction(withConnector(shipped, connector, actions), "imports.run", {}, ctxFor()),
      ).rejects.toMatchObject({
        class: "connector_error",
        message: `imports: imports ${module} ${name}, which the host does not provide`,
      });
    }
  });

  it("reports a missing export as connector_error", async () => {
    const file = join(tempDir(), "empty.wasm");
    writeFileSync(file, new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));
    const { connector, actions } = connectorFor("empty", file, ["run"]);
    await expect(
      runAction(withConnector(shipped, connector, actions), "empty.run", {}, ctxFor()),
    ).rejects.toMatchObject({ class: "connector_error" });
  });
});

describe("running a plugin", () => {
  it("stops a plugin that spins for ever with resource_limit_exceeded, then loads a fresh one", async () => {
    const set = testSet("spin");
    const pool = createPluginPool();
    const ctx = { ...ctxFor({ timeoutMs: 200 }), plugins: pool };
    // The plugin never returns by itself: only the deadline can end each call.
    for (let round = 0; round < 2; round++) {
      await expect(runAction(set, "spin.spin", {}, ctx)).rejects.toMatchObject({
        class: "resource_limit_exceeded",
        details: { timeout_ms: 200 },
      });
    }
    await pool.close();
  });

  it("stops a plugin that allocates without end at its declared memory maximum", async () => {
    const rss = process.memoryUsage().rss;
    await expect(runAction(testSet("hog"), "hog.hog", {}, ctxFor())).rejects.toMatchObject({
      class: "connector_error",
      message: expect.stringMatching(/^hog\.hog: plugin trapped: /),
    });
    expect(process.memoryUsage().rss - rss).toBeLessThan(256 * 1024 * 1024);
  });

  it("reuses a pooled plugin across actions and serializes concurrent calls", async () => {
    const pool = createPluginPool();
    const ctx = { ...ctxFor(), plugins: pool };
    const letters = Array.from({ length: 5 }, (_, i) => ({ to: [`p${i}@example.com`], subject: `n${i}`, body: "b" }));
    const results = await Promise.all(letters.map((l) => runAction(shipped, "email.send_email", l, ctx)));
    expect(new Set(results.map((r) => (r as { id: string }).id)).size).toBe(5);
    expect(
      gmail.sent
        .slice(-5)
        .map((m) => m.subject)
        .sort(),
    ).toEqual(["n0", "n1", "n2", "n3", "n4"]);
    await pool.close();
  });
});
