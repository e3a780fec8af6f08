// The fuel meter the project's build compiles into its plugins: a metered plugin in the host's
// thread runs without the node:vm watchdog and is stopped by its meter's host function (or any
// host function) once its slice has passed, in a pure wasm loop, in recursion and after a host
// read alike; in a worker the meter does nothing and the deadline stops the thread. A plugin
// without the meter keeps the watchdog.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Script } from "node:vm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Capabilities } from "../../src/connector/capabilities.js";
import { DEFAULT_LIMITS, type Limits } from "../../src/connector/limits.js";
import { importsMeter, METER_FUNCTION } from "../../src/connector/meter.js";
import { InThreadPlugin } from "../../src/connector/plugin-in-thread.js";
import { createPluginPool, type PluginPool } from "../../src/connector/plugin-pool.js";
import type { LoadedConnector } from "../../src/manifest/manifest-set.js";
import { packageRoot } from "../../src/model/paths.js";
import { wasm, type WasmModule } from "../../src/model/wasm.js";
import { buildTestPlugin, connectorFor, tempDir } from "./fixtures.js";

const BUDGET = 1 << 20;
const EMPTY_LISTING = JSON.stringify({ ok: true, entries: [] });
const answers = {
  fs_list: () => EMPTY_LISTING,
  fs_read: () => EMPTY_LISTING,
  fs_write: () => JSON.stringify({ ok: true, bytes: 4 }),
  fs_missing_dirs: () => JSON.stringify({ ok: true, dirs: [] }),
  fs_mkdir: () => JSON.stringify({ ok: true }),
};
// A call of each test plugin that ends, and its output.
const SERVED: Record<string, [string, string]> = {
  spin_metered: ["recurse", JSON.stringify({ n: 10 })],
  stall_metered: ["slow_work", JSON.stringify({ path: "/x", rounds: 0 })],
};
const SERVED_OUTPUT: Record<string, string> = { spin_metered: '{"fib":55}', stall_metered: '{"entries":0,"odd":true}' };
const modules: Record<string, WasmModule> = {};
const connectors: Record<string, LoadedConnector> = {};
let pool: PluginPool;

beforeAll(async () => {
  const dir = tempDir("cs-meter-");
  for (const [name, meter] of [
    ["spin", true],
    ["stall", true],
    ["spin", false],
  ] as const) {
    const path = await buildTestPlugin(name, dir, { meter });
    const key = meter ? `${name}_metered` : name;
    modules[key] = await wasm.compile(readFileSync(path));
    connectors[key] = connectorFor(key, path, []).connector;
  }
  modules.fs = await wasm.compile(readFileSync(join(packageRoot, "trusted", "connectors", "fs.wasm")));
  pool = createPluginPool();
}, 60_000);
afterAll(() => pool.close());

function caps(root: string): Capabilities {
  return {
    connector: "stall",
    hosts: new Set(),
    baseUrl: null,
    credential: null,
    roots: [{ given: root, real: root }],
    secrets: [],
  };
}

/** How many calls ran inside the node:vm watchdog while `work` ran. */
async function watchdogs(work: () => Promise<unknown>): Promise<number> {
  const spy = vi.spyOn(Script.prototype, "runInContext");
  try {
    await work();
    return spy.mock.calls.length;
  } finally {
    spy.mockRestore();
  }
}

describe("the build's fuel meter", () => {
  it("is in the shipped connectors and in metered test builds, and only there", () => {
    for (const name of ["email", "fs", "http"]) {
      expect(
        importsMeter(new wasm.Module(readFileSync(join(packageRoot, "trusted", "connectors", `${name}.wasm`)))),
        name,
      ).toBe(true);
    }
    expect(importsMeter(modules.spin_metered!)).toBe(true);
    expect(importsMeter(modules.spin!)).toBe(false);
    expect(wasm.Module.imports(modules.spin_metered!)).toContainEqual({
      module: "extism:host/user",
      name: METER_FUNCTION,
      kind: "function",
    });
  });
});

describe("a metered plugin in the host's thread", () => {
  it.each([
    ["a pure wasm loop", "spin_metered", "spin"],
    ["recursion", "spin_metered", "recurse"],
    ["a loop after a host read", "stall_metered", "read_then_spin"],
  ])("%s: stopped at its slice without the watchdog, and the next call gets a good instance", async (_, key, fn) => {
    const plugin = await InThreadPlugin.create(modules[key]!, answers);
    expect(plugin.metered).toBe(true);
    let result: unknown;
    const started = performance.now();
    expect(
      await watchdogs(
        async () => (result = await plugin.call(fn, JSON.stringify({ path: "/x", n: 90 }), 30, false, BUDGET)),
      ),
    ).toBe(0);
    expect(result).toEqual({ ok: false, slice: true, changed: false });
    expect(performance.now() - started).toBeGreaterThanOrEqual(30); // it ran its whole slice; it spins forever, so an answer is the slice stopping it
    expect(await plugin.call(...SERVED[key]!, 1_000, false, BUDGET)).toEqual({ ok: true, output: SERVED_OUTPUT[key] });
    await plugin.close();
  });

  it("a host function called past the slice stops the call before it acts", async () => {
    const listed: string[] = [];
    const slowList = (request: string): string => {
      listed.push(request);
      const until = performance.now() + 40; // the slice passes inside the first listing
      while (performance.now() < until);
      return EMPTY_LISTING;
    };
    const writes: string[] = [];
    const plugin = await InThreadPlugin.create(modules.stall_metered!, {
      ...answers,
      fs_list: slowList,
      fs_write: (r) => (writes.push(r), answers.fs_write()),
    });
    // write_then_list lists (past the slice by its end), then would write: the write is refused unmade.
    expect(await plugin.call("write_then_list", JSON.stringify({ path: "/x" }), 30, false, BUDGET)).toEqual({
      ok: false,
      slice: true,
      changed: false,
    });
    expect(listed).toHaveLength(1);
    expect(writes).toEqual([]);
    await plugin.close();
  });

  it("work that ends within its slice is unaffected by the meter", async () => {
    const plugin = await InThreadPlugin.create(modules.stall_metered!, answers);
    expect(await plugin.call("slow_work", JSON.stringify({ path: "/x", rounds: 2 }), 5_000, false, BUDGET)).toEqual({
      ok: true,
      output: '{"entries":0,"odd":true}',
    });
    await plugin.close();
  });

  it("the shipped fs connector runs without the watchdog; an unmetered plugin runs inside it", async () => {
    const fs = await InThreadPlugin.create(modules.fs!, answers);
    const root = tempDir();
    const calls = await watchdogs(() => fs.call("list_dir", JSON.stringify({ path: root }), 1_000, false, BUDGET));
    expect(fs.metered).toBe(true);
    expect(calls).toBe(0);
    await fs.close();
    const spin = await InThreadPlugin.create(modules.spin!, answers);
    expect(spin.metered).toBe(false);
    let result: unknown;
    expect(await watchdogs(async () => (result = await spin.call("spin", "", 30, false, BUDGET)))).toBe(1);
    expect(result).toEqual({ ok: false, slice: true, changed: false });
    await spin.close();
  });
});

describe("a metered plugin through the pool", () => {
  const limits = (timeoutMs: number): Limits => ({ ...DEFAULT_LIMITS, timeoutMs });

  it.each([
    ["a pure wasm loop", "spin_metered", "spin"],
    ["recursion", "spin_metered", "recurse"],
    ["a loop after a host read", "stall_metered", "read_then_spin"],
  ])(
    "%s: stopped at its deadline with resource_limit_exceeded (in a worker, whose meter does nothing), and the next call is served",
    async (_, key, fn) => {
      const root = tempDir();
      await expect(
        pool.call(connectors[key]!, fn, { path: root, n: 90 }, caps(root), limits(300)),
      ).rejects.toMatchObject({
        class: "resource_limit_exceeded",
        details: { timeout_ms: 300 },
      });
      const [served, input] = SERVED[key]!;
      expect(
        await pool.call(connectors[key]!, served, { ...JSON.parse(input), path: root }, caps(root), limits(5_000)),
      ).toEqual({ ...JSON.parse(SERVED_OUTPUT[key]!) });
    },
  );
});
