// Hostile plugins (issue 16): one that spins, one that allocates host memory without end, and
// ones that answer with garbage. Each call ends with a typed error that says what happened, and
// the same pool (and process) serves the next call, of that plugin and of a shipped one.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { connectorContext } from "../../src/config/index.js";
import type { ConnectorContext } from "../../src/connector/context.js";
import { createPluginPool, type PluginPool } from "../../src/connector/plugin-pool.js";
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

const GARBAGE = ["not_json", "not_object", "deep", "host_hog", "huge", "chatty", "ok", "impostor", "partial", "padded"];
let set: ManifestSet;
let pool: PluginPool;
let ctx: ConnectorContext;
let root: string;

beforeAll(async () => {
  const dir = tempDir("cs-faults-");
  await Promise.all([buildTestPlugin("garbage", dir), buildTestPlugin("spin", dir)]);
  const garbage = connectorFor("garbage", join(dir, "garbage.wasm"), GARBAGE);
  // The impostors declare get_draft's result: their answers are checked against its fields.
  const fields = shippedManifests().actions.get("email.get_draft")!.manifest.result.fields;
  for (const action of garbage.actions)
    if (["impostor", "partial", "padded"].includes(action.name)) action.manifest.result = { fields };
  const spin = connectorFor("spin", join(dir, "spin.wasm"), ["spin"]);
  set = withConnector(
    withConnector(shippedManifests(), garbage.connector, garbage.actions),
    spin.connector,
    spin.actions,
  );
  root = tempDir("cs-faults-root-");
  pool = createPluginPool();
  ctx = connectorContext(dataDirWith(`[fs]\nroots = ["${root}"]\n`), { plugins: pool, limits: { timeoutMs: 2_000 } });
}, 60_000);
afterAll(() => pool.close());

/** The pool still serves: the hostile plugin answers properly again, and so does a shipped one. */
async function servesAgain(): Promise<void> {
  expect(await runAction(set, "garbage.ok", {}, ctx)).toEqual({ ok: true });
  expect(await runAction(set, "fs.list_dir", { path: root }, ctx)).toEqual({ path: root, entries: [] });
}

describe("a plugin that answers with garbage", () => {
  it.each([
    ["not_json", "garbage.not_json: the plugin's output is not JSON"],
    ["not_object", "garbage.not_object: the plugin's output is not a JSON object"],
    ["deep", "garbage.deep: the plugin's output is nested more than 64 levels deep"],
  ])("%s: connector_error with what was wrong, and the pool serves the next call", async (fn, message) => {
    await expect(runAction(set, `garbage.${fn}`, {}, ctx)).rejects.toMatchObject({ class: "connector_error", message });
    await servesAgain();
  });

  it("an answer of another shape than the manifest declares: connector_error naming the action and the field", async () => {
    await expect(runAction(set, "garbage.impostor", {}, ctx)).rejects.toMatchObject({
      class: "connector_error",
      message: expect.stringMatching(/^garbage\.impostor: the connector's result does not match its manifest at to: /),
      details: { op: "garbage.impostor", field: "to", reason: "result_shape" },
    });
    await expect(runAction(set, "garbage.partial", {}, ctx)).rejects.toMatchObject({
      details: { op: "garbage.partial", field: "body", reason: "result_shape" },
    });
    await servesAgain();
  });

  it("fields the manifest does not declare never reach the program, a prototype key included", async () => {
    const result = (await runAction(set, "garbage.padded", {}, ctx)) as Record<string, unknown>;
    expect(result).toEqual({ id: "d1", to: ["a@x.com"], subject: "s", body: "b", message: {} });
    expect(Object.keys(result)).not.toContain("admin");
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("output past the call's host memory budget: resource_limit_exceeded, and the pool serves the next call", async () => {
    const small = { ...ctx, limits: { ...ctx.limits, maxHostMemoryBytes: 1 << 20 } };
    await expect(runAction(set, "garbage.huge", {}, small)).rejects.toMatchObject({
      class: "resource_limit_exceeded",
      message: `garbage.huge: the plugin allocated more than ${1 << 20} bytes of host memory in one call and was stopped`,
      details: { host_memory_bytes: 1 << 20 },
    });
    await servesAgain();
  });

  it("log lines reach neither the host's output nor its errors, and the answer stands", async () => {
    const written: string[] = [];
    const spies = [process.stdout, process.stderr].map((stream) =>
      vi.spyOn(stream, "write").mockImplementation((chunk: string | Uint8Array) => written.push(String(chunk)) > 0),
    );
    try {
      expect(await runAction(set, "garbage.chatty", {}, ctx)).toEqual({ said: "little" });
      await new Promise((resolve) => setTimeout(resolve, 200)); // a worker's output reaches the host's streams later
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(written).toEqual([]);
  });
});

describe("a plugin that does not stop by itself", () => {
  it("allocating host memory without end: stopped at the budget, long before the deadline, with resource_limit_exceeded", async () => {
    const rss = process.memoryUsage().rss;
    // The budget's own message: the deadline would have said it timed out.
    await expect(runAction(set, "garbage.host_hog", {}, ctx)).rejects.toMatchObject({
      class: "resource_limit_exceeded",
      message: `garbage.host_hog: the plugin allocated more than ${64 << 20} bytes of host memory in one call and was stopped`,
    });
    expect(process.memoryUsage().rss - rss).toBeLessThan(512 << 20);
    await servesAgain();
  });

  it("spinning: stopped at the deadline with resource_limit_exceeded, and the pool serves the next call", async () => {
    const quick = { ...ctx, limits: { ...ctx.limits, timeoutMs: 200 } };
    await expect(runAction(set, "spin.spin", {}, quick)).rejects.toMatchObject({
      class: "resource_limit_exceeded",
      details: { timeout_ms: 200 },
    });
    await servesAgain();
  });

  it("spinning: the host's event loop keeps running while it waits for the deadline", async () => {
    const slow = { ...ctx, limits: { ...ctx.limits, timeoutMs: 1_000 } };
    let ticks = 0;
    const ticker = setInterval(() => void ticks++, 5);
    try {
      await expect(runAction(set, "spin.spin", {}, slow)).rejects.toMatchObject({ class: "resource_limit_exceeded" });
    } finally {
      clearInterval(ticker);
    }
    // The host blocks only a few ms for an answer, then waits asynchronously: timers fire meanwhile
    // (a loop blocked until the deadline would fire the timer at most once, after it).
    expect(ticks).toBeGreaterThan(1);
  });
});
