// A preview's provider that never answers, with a context that would wait a minute: the preview
// still ends at its own cap of 5 s. Waiting for the cap is what the test is for.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectorContext } from "../../src/config/index.js";
import { fetchPreview, PREVIEW_TIMEOUT_MS } from "../../src/connector/fetch-preview.js";
import { createPluginPool, type PluginPool } from "../../src/connector/plugin-pool.js";
import { dataDirWith, shippedManifests } from "./fixtures.js";

const set = shippedManifests();
let silent: Server; // takes each request and never answers
let pool: PluginPool;

beforeAll(async () => {
  silent = createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
  pool = createPluginPool();
});
afterAll(async () => {
  await pool.close();
  silent.closeAllConnections();
  await new Promise((resolve) => silent.close(resolve));
});

describe("fetchPreview's timeout", () => {
  it("is capped at 5 s whatever the context allows", async () => {
    expect(PREVIEW_TIMEOUT_MS).toBe(5_000);
    const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const ctx = connectorContext(dataDirWith(`[email]\nbase_url = "${url}"\ntoken_file = "TOKEN_FILE"\n`), {
      plugins: pool,
      limits: { timeoutMs: 60_000 },
    });
    const preview = await fetchPreview(set, "email.send_draft", { draft_id: "r1" }, ctx, () => null);
    expect(preview).toEqual({
      ok: false,
      reason: "Preview unavailable: email.get_draft ran longer than 5000 ms and was stopped",
      fields: [],
    });
  }, 15_000);
});
