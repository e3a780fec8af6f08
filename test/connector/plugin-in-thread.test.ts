// Plugins in the host's thread, built without the fuel meter (plugin-meter.test.ts has those): a
// call runs inside a slice (a node:vm timeout) that stops wasm and host functions alike; its writes wait for its end (or its next host function call); past its
// slice, a call that has changed nothing is made again in a worker and one that has is stopped.
// The instance is replaced after any failed call, and host memory is bounded per call as in a worker.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { Capabilities } from "../../src/connector/capabilities.js";
import { SUCCESS_ANSWERS } from "../../src/connector/host-functions.js";
import { DEFAULT_LIMITS, type Limits } from "../../src/connector/limits.js";
import { InThreadPlugin } from "../../src/connector/plugin-in-thread.js";
import { createPluginPool, IN_THREAD_SLICE_MS } from "../../src/connector/plugin-pool.js";
import { PluginWorker } from "../../src/connector/plugin-worker.js";
import type { LoadedConnector } from "../../src/manifest/manifest-set.js";
import { wasm, type WasmModule } from "../../src/model/wasm.js";
import { buildTestPlugin, connectorFor, tempDir } from "./fixtures.js";

let dir: string;
const modules: Record<string, WasmModule> = {};
const connectors: Record<string, LoadedConnector> = {};

beforeAll(async () => {
  dir = tempDir("cs-in-thread-");
  const names = ["stall", "spin", "garbage", "hog"];
  await Promise.all(names.map((name) => buildTestPlugin(name, dir)));
  for (const name of names) {
    modules[name] = await wasm.compile(readFileSync(join(dir, `${name}.wasm`)));
    connectors[name] = connectorFor(name, join(dir, `${name}.wasm`), []).connector;
  }
}, 60_000);

const BUDGET = 1 << 20;
const EMPTY_LISTING = JSON.stringify({ ok: true, entries: [] });
const answers = {
  fs_list: () => EMPTY_LISTING,
  fs_read: () => EMPTY_LISTING,
  fs_write: () => JSON.stringify({ ok: true, bytes: 4 }),
};

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

/**
 * How often a timer fired while `work` ran. A loop blocked for the whole call fires it at most
 * once, after the block; more is the loop running meanwhile, however fast the machine.
 */
async function ticksWhile(work: () => Promise<unknown>): Promise<number> {
  let ticks = 0;
  const ticker = setInterval(() => void ticks++, 2);
  try {
    await work().catch(() => undefined);
  } finally {
    clearInterval(ticker);
  }
  return ticks;
}

describe("a plugin in the host's thread", () => {
  it("spinning wasm: stopped at its slice, and the next call gets a good instance", async () => {
    const plugin = await InThreadPlugin.create(modules.stall!, answers);
    // It spins forever: that the call answers at all is the slice stopping it.
    expect(await plugin.call("read_then_spin", JSON.stringify({ path: "/x" }), 30, false, BUDGET)).toEqual({
      ok: false,
      slice: true,
      changed: false,
    });
    expect(
      await plugin.call("slow_work", JSON.stringify({ path: "/x", rounds: 0 }), 1_000, false, BUDGET),
    ).toMatchObject({ ok: true, output: '{"entries":0,"odd":true}' });
    await plugin.close();
  });

  it("spinning after a write: stopped at its slice before the write was made", async () => {
    const writes: string[] = [];
    const plugin = await InThreadPlugin.create(
      modules.stall!,
      { ...answers, fs_write: (r) => (writes.push(r), answers.fs_write()) },
      SUCCESS_ANSWERS,
    );
    expect(await plugin.call("write_then_spin", JSON.stringify({ path: "/x" }), 30, false, BUDGET)).toEqual({
      ok: false,
      slice: true,
      changed: false,
    });
    expect(writes).toEqual([]);
    await plugin.close();
  });

  it("spinning after a write and another host function call: the write was made, and it says so", async () => {
    const writes: string[] = [];
    const plugin = await InThreadPlugin.create(
      modules.stall!,
      { ...answers, fs_write: (r) => (writes.push(r), answers.fs_write()) },
      SUCCESS_ANSWERS,
    );
    expect(await plugin.call("write_list_spin", JSON.stringify({ path: "/x" }), 30, false, BUDGET)).toEqual({
      ok: false,
      slice: true,
      changed: true,
    });
    expect(writes).toEqual([JSON.stringify({ path: "/x/w0", content: "once" })]);
    await plugin.close();
  });

  it("a write is made before the plugin's next host function call, and when it fails its error decides the call", async () => {
    const events: string[] = [];
    const handlers = {
      fs_list: () => (events.push("list"), EMPTY_LISTING),
      fs_read: answers.fs_read,
      fs_write: () => (
        events.push("write"), JSON.stringify({ ok: false, error: { class: "capability_denied", message: "no" } })
      ),
    };
    const plugin = await InThreadPlugin.create(modules.stall!, handlers, SUCCESS_ANSWERS);
    expect(await plugin.call("write_then_list", JSON.stringify({ path: "/x" }), 1_000, false, BUDGET)).toEqual({
      ok: true,
      output: '{"entries":0}',
    });
    expect(events).toEqual(["list", "write", "list"]);
    await plugin.close();
  });

  it("spinning inside a host function: stopped at its slice too", async () => {
    const spinning = {
      ...answers,
      fs_list: (): string => {
        for (;;);
      },
    };
    const plugin = await InThreadPlugin.create(modules.stall!, spinning);
    expect(await plugin.call("read_then_spin", JSON.stringify({ path: "/x" }), 30, false, BUDGET)).toEqual({
      ok: false,
      slice: true,
      changed: false,
    });
    await plugin.close();
  });

  it("a host function that throws: the call fails with its message, and the next call is served", async () => {
    let fires = 1;
    const throwing = {
      ...answers,
      fs_list: () => {
        if (fires-- > 0) throw new Error("the disk is on fire");
        return EMPTY_LISTING;
      },
    };
    const plugin = await InThreadPlugin.create(modules.stall!, throwing);
    const input = JSON.stringify({ path: "/x", rounds: 0 });
    expect(await plugin.call("slow_work", input, 1_000, false, BUDGET)).toEqual({
      ok: false,
      message: "the disk is on fire",
      overLimit: false,
    });
    expect(await plugin.call("slow_work", input, 1_000, false, BUDGET)).toEqual({
      ok: true,
      output: '{"entries":0,"odd":true}',
    });
    await plugin.close();
  });

  it("a host function that answers with a promise is refused (such plugins belong in a worker)", async () => {
    const plugin = await InThreadPlugin.create(modules.stall!, {
      ...answers,
      fs_list: () => Promise.resolve(EMPTY_LISTING),
    });
    expect(await plugin.call("slow_work", JSON.stringify({ path: "/x", rounds: 0 }), 1_000, false, BUDGET)).toEqual({
      ok: false,
      message: "fs_list does not answer synchronously",
      overLimit: false,
    });
    await plugin.close();
  });

  it("memory growth past the declared maximum traps, and the next call is served", async () => {
    const plugin = await InThreadPlugin.create(modules.hog!, answers);
    expect(await plugin.call("hog", "", 5_000, false, BUDGET)).toMatchObject({ ok: false, overLimit: false });
    expect(await plugin.call("hog", "", 5_000, false, BUDGET)).toMatchObject({ ok: false, overLimit: false }); // a new instance: it grows again from the start
    await plugin.close();
  });

  it("host memory past the call's budget: stopped with overLimit, and the next call is served", async () => {
    const plugin = await InThreadPlugin.create(modules.garbage!, answers);
    expect(await plugin.call("host_hog", "", 5_000, false, BUDGET)).toEqual({
      ok: false,
      message: `the plugin allocated more than ${BUDGET} bytes of host memory in one call`,
      overLimit: true,
    });
    expect(await plugin.call("ok", "", 1_000, false, BUDGET)).toEqual({ ok: true, output: '{"ok":true}' });
    await plugin.close();
  });
});

describe("the pool's slice in the host's thread", () => {
  const limits = (timeoutMs: number): Limits => ({ ...DEFAULT_LIMITS, timeoutMs });

  it("a call that has only read runs on in a worker and is stopped at its deadline; the event loop runs meanwhile", async () => {
    const pool = createPluginPool();
    const root = tempDir();
    let failure: unknown;
    const ticks = await ticksWhile(() =>
      pool
        .call(connectors.stall!, "read_then_spin", { path: root }, caps(root), limits(1_000))
        .catch((err: unknown) => (failure = err)),
    );
    expect(failure).toMatchObject({ class: "resource_limit_exceeded", details: { timeout_ms: 1_000 } });
    expect(ticks).toBeGreaterThan(1);
    await pool.close();
  });

  it("a call whose write was still waiting is made again in a worker, which writes once and is stopped at the deadline", async () => {
    const pool = createPluginPool();
    const root = tempDir();
    await expect(
      pool.call(connectors.stall!, "write_then_spin", { path: root }, caps(root), limits(1_000)),
    ).rejects.toMatchObject({
      class: "resource_limit_exceeded",
      details: { timeout_ms: 1_000 },
    });
    expect(readdirSync(root)).toEqual(["w0"]); // two writes would have made w0 and w1
    await pool.close();
  });

  it("a call that has written is stopped at its slice and not made again", async () => {
    const pool = createPluginPool();
    const root = tempDir();
    await expect(
      pool.call(connectors.stall!, "write_list_spin", { path: root }, caps(root), limits(5_000)),
    ).rejects.toMatchObject({
      class: "resource_limit_exceeded",
      message: `stall.write_list_spin ran longer than ${IN_THREAD_SLICE_MS} ms in the host's thread after a write, and was stopped (a call that has written is not made again)`,
      details: { slice_ms: IN_THREAD_SLICE_MS },
    });
    expect(readdirSync(root)).toEqual(["w0"]); // a second attempt would have listed w0 and written w1
    await pool.close();
  });

  it("a write is made when the call ends, and a listing after it in the same call sees it", async () => {
    const pool = createPluginPool();
    const root = tempDir();
    expect(await pool.call(connectors.stall!, "write_then_list", { path: root }, caps(root), limits(5_000))).toEqual({
      entries: 1,
    });
    expect(readFileSync(join(root, "w0"), "utf8")).toBe("once");
    const outside = tempDir();
    await expect(
      pool.call(connectors.stall!, "write_then_list", { path: outside }, caps(root), limits(5_000)),
    ).rejects.toMatchObject({ class: "capability_denied" });
    expect(readdirSync(outside)).toEqual([]);
    await pool.close();
  });

  it("a slow call is made again in a worker and answers; the plugin's next calls go straight to the worker", async () => {
    const pool = createPluginPool();
    const root = tempDir();
    const inThread = vi.spyOn(InThreadPlugin.prototype, "call");
    try {
      const call = () =>
        pool.call(connectors.stall!, "slow_work", { path: root, rounds: 300 }, caps(root), limits(30_000));
      expect(await call()).toMatchObject({ entries: 0 });
      expect(inThread).toHaveBeenCalledTimes(1);
      expect(await call()).toMatchObject({ entries: 0 });
      expect(inThread).toHaveBeenCalledTimes(1);
      // A fast plugin stays in the host's thread.
      expect(await pool.call(connectors.garbage!, "ok", {}, caps(root), limits(1_000))).toEqual({ ok: true });
      expect(inThread).toHaveBeenCalledTimes(2);
    } finally {
      inThread.mockRestore();
      await pool.close();
    }
  });

  it("a call made again in a worker that traps there: connector_error, the worker is dropped, and the next call is served", async () => {
    const pool = createPluginPool();
    const root = tempDir();
    const closed = vi.spyOn(PluginWorker.prototype, "close");
    try {
      await expect(
        pool.call(connectors.stall!, "slow_then_trap", { path: root, rounds: 300 }, caps(root), limits(30_000)),
      ).rejects.toMatchObject({
        class: "connector_error",
        message: expect.stringMatching(/^stall\.slow_then_trap: plugin trapped: /) as string,
      });
      expect(closed).toHaveBeenCalledTimes(1);
      expect(
        await pool.call(connectors.stall!, "slow_work", { path: root, rounds: 0 }, caps(root), limits(30_000)),
      ).toEqual({ entries: 0, odd: true });
    } finally {
      closed.mockRestore();
      await pool.close();
    }
  });

  it("a plugin that spins for ever is stopped at each deadline, and another plugin is still served", async () => {
    const pool = createPluginPool();
    const root = tempDir();
    for (let round = 0; round < 2; round++) {
      await expect(pool.call(connectors.spin!, "spin", {}, caps(root), limits(200))).rejects.toMatchObject({
        class: "resource_limit_exceeded",
        details: { timeout_ms: 200 },
      });
    }
    expect(await pool.call(connectors.garbage!, "ok", {}, caps(root), limits(1_000))).toEqual({ ok: true });
    await pool.close();
  });
});
