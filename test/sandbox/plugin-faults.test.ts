// A run whose trusted calls reach hostile plugins (issue 16): each failure reaches the program as
// an error with its class, which it may catch, the run goes on and ends normally, and the host
// process and the plugin pool serve the next run.
import { createHash } from "node:crypto";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectorContext } from "../../src/config/index.js";
import {
  callWithReceipt,
  createPluginPool,
  type ConnectorContext,
  type PluginPool,
} from "../../src/connector/index.js";
import type { ManifestSet } from "../../src/manifest/manifest-set.js";
import { runProgram, sandboxApi } from "../../src/sandbox/index.js";
import {
  anyReceipt,
  buildTestPlugin,
  connectorFor,
  dataDirWith,
  shippedManifests,
  tempDir,
  withConnector,
} from "../connector/fixtures.js";

let set: ManifestSet;
let pool: PluginPool;
let ctx: ConnectorContext;

beforeAll(async () => {
  const dir = tempDir("cs-run-faults-");
  await Promise.all([buildTestPlugin("garbage", dir), buildTestPlugin("spin", dir)]);
  const garbage = connectorFor("garbage", join(dir, "garbage.wasm"), ["not_json", "host_hog", "ok"]);
  const spin = connectorFor("spin", join(dir, "spin.wasm"), ["spin"]);
  set = withConnector(
    withConnector(shippedManifests(), garbage.connector, garbage.actions),
    spin.connector,
    spin.actions,
  );
  pool = createPluginPool();
  ctx = connectorContext(dataDirWith(`[fs]\nroots = ["${tempDir()}"]\n`), {
    plugins: pool,
    limits: { timeoutMs: 1_000 },
  }); // room for a legitimate call on a busy machine
}, 60_000);
afterAll(() => pool.close());

async function run(body: string) {
  const source = Buffer.from(`import { program } from "countersign";
import { notJson, hostHog, ok } from "trusted/garbage";
import { spin } from "trusted/spin";
export default program({
  rationale: "Calls hostile plugins.",
  guarantees: [],
  async main() {
    const seen = [];
    const attempt = async (call) => {
      try {
        seen.push(await call());
      } catch (error) {
        seen.push(error.class);
      }
    };
${body}
    return seen;
  },
});
`);
  const verified = anyReceipt(set);
  const sha256 = createHash("sha256").update(source).digest("hex");
  return runProgram({
    source,
    sha256,
    entry: "faults.ts",
    api: sandboxApi(set),
    invoke: (op, args) => callWithReceipt(verified, set, op, args, ctx),
  });
}

describe("a run that calls hostile plugins", () => {
  it("gets each failure as a typed error it can catch, then the plugin answers again", async () => {
    const result = await run(`
    await attempt(() => notJson({}));
    await attempt(() => hostHog({}));
    await attempt(() => spin({}));
    await attempt(() => ok({}));`);
    expect(result.outcome).toBe("returned");
    expect(result.value).toEqual([
      "connector_error",
      "resource_limit_exceeded",
      "resource_limit_exceeded",
      { ok: true },
    ]);
    expect(result.calls.map((c) => [c.op, c.status, c.error?.class])).toEqual([
      ["garbage.not_json", "failed", "connector_error"],
      ["garbage.host_hog", "failed", "resource_limit_exceeded"],
      ["spin.spin", "failed", "resource_limit_exceeded"],
      ["garbage.ok", "done", undefined],
    ]);
  });

  it("ends with the error when the program lets it escape, and the next run is served", async () => {
    const failed = await run("    await spin({});");
    expect(failed.outcome).toBe("threw");
    expect(failed.thrown).toMatchObject({
      class: "resource_limit_exceeded",
      message: expect.stringContaining("spin.spin ran longer than 1000 ms"),
    });
    const next = await run("    await attempt(() => ok({}));");
    expect(next.value).toEqual([{ ok: true }]);
  });
});
