// What a pooled plugin keeps between calls: within one run (one receipt) its instance may serve
// every call; a call under another receipt, and every preview, gets an instance nothing else used.
// And a long-lived instance keeps serving past the point where Extism's block table would run out.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectorContext } from "../../src/config/index.js";
import { admitPreview } from "../../src/connector/admission.js";
import { callWithReceipt } from "../../src/connector/call-with-receipt.js";
import { executeAction } from "../../src/connector/execute-action.js";
import { createPluginPool, type PluginPool } from "../../src/connector/plugin-pool.js";
import type { ManifestSet } from "../../src/manifest/manifest-set.js";
import {
  anyReceipt,
  buildTestPlugin,
  connectorFor,
  dataDirWith,
  shippedManifests,
  tempDir,
  withConnector,
} from "./fixtures.js";

const shipped = shippedManifests();
let keep: ManifestSet;
let blocks: ManifestSet;
let pool: PluginPool;
const ctx = () => connectorContext(dataDirWith(""), { plugins: pool });

beforeAll(async () => {
  const dir = tempDir("cs-plugins-");
  await Promise.all([buildTestPlugin("keep", dir), buildTestPlugin("blocks", dir)]);
  const k = connectorFor("keep", join(dir, "keep.wasm"), ["count"]);
  keep = withConnector(shipped, k.connector, k.actions);
  const b = connectorFor("blocks", join(dir, "blocks.wasm"), ["blocks"]);
  blocks = withConnector(shipped, b.connector, b.actions);
  pool = createPluginPool();
}, 60_000);
afterAll(() => pool.close());

describe("plugin state", () => {
  it("lasts for the calls of one run and starts afresh for the next run", async () => {
    const [first, second] = [anyReceipt(keep), anyReceipt(keep)];
    const c = ctx();
    expect(await callWithReceipt(first, keep, "keep.count", {}, c)).toEqual({ calls: 1, kept: 1 });
    expect(await callWithReceipt(first, keep, "keep.count", {}, c)).toEqual({ calls: 2, kept: 2 });
    expect(await callWithReceipt(second, keep, "keep.count", {}, c)).toEqual({ calls: 1, kept: 1 });
    expect(await callWithReceipt(second, keep, "keep.count", {}, c)).toEqual({ calls: 2, kept: 2 });
    // Back to the first receipt: its instance is gone, what it kept with it.
    expect(await callWithReceipt(first, keep, "keep.count", {}, c)).toEqual({ calls: 1, kept: 1 });
  });

  it("never reaches a preview: each preview has an instance of its own", async () => {
    const c = ctx();
    await callWithReceipt(anyReceipt(keep), keep, "keep.count", {}, c);
    for (let i = 0; i < 3; i++)
      expect(await executeAction(keep, admitPreview(keep, "keep.count", {}), c)).toEqual({ calls: 1, kept: 1 });
  });

  it("is not shared by calls made straight to the pool without a scope", async () => {
    const connector = keep.connectors.get("keep")!;
    const caps = {
      connector: "keep",
      hosts: new Set<string>(),
      baseUrl: null,
      credential: null,
      roots: [],
      secrets: [],
    };
    for (let i = 0; i < 2; i++)
      expect(await pool.call(connector, "count", {}, caps, ctx().limits)).toEqual({ calls: 1, kept: 1 });
  });
});

describe("a long-lived plugin instance", () => {
  it("serves more calls than Extism's block table holds without a reset (2000 blocks a call, 16-bit block numbers)", async () => {
    const receipt = anyReceipt(blocks);
    const c = ctx();
    for (let i = 0; i < 40; i++) expect(await callWithReceipt(receipt, blocks, "blocks.blocks", {}, c)).toEqual({});
  });
});
