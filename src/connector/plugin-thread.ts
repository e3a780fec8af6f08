import type { CallContext, createPlugin as CreatePlugin, Plugin } from "@extism/extism";
import { createRequire } from "node:module";
import { workerData } from "node:worker_threads";
import type { WasmModule } from "../model/index.js";
import { type GrowableShared, Kind, MAX_MESSAGE_BYTES, openChannel, TO_MAIN, TO_WORKER } from "./plugin-channel.js";

/** What a plugin thread is started with (plugin-worker.ts). */
export interface PluginThreadData {
  module: WasmModule;
  hostNames: string[];
  meter: string; // the fuel meter's host function (meter.ts): named here, as meter.ts loads the whole model
  channel: GrowableShared;
}

/** How long the thread waits idle before it makes the next fresh plugin instance ahead. */
const IDLE_MS = 3;

/**
 * The code of a plugin thread. It instantiates one Extism plugin in the foreground of its own
 * thread and then serves calls one at a time over the channel of plugin-channel.ts:
 *
 * - the host writes a message and raises flag TO_WORKER; the thread sleeps in Atomics.wait on
 *   that flag between calls, so a call wakes it without a trip through its event loop;
 * - the thread answers the same way on flag TO_MAIN, which the host awaits with Atomics.waitAsync;
 * - a host function is a synchronous function in the thread that writes its request, raises
 *   TO_MAIN and sleeps until the host (which may take its time: fetch, file I/O) writes the response.
 *
 * Every call starts with Extism's call state reset (its memory blocks are never freed otherwise,
 * and run out after some thousands of calls). A `freshCall` first replaces a plugin instance that
 * has served calls with a new one, so that nothing a plugin kept (globals, linear memory, Extism
 * variables) reaches a call of another scope; the new one is made ahead, once the thread has been
 * idle for IDLE_MS (between runs), so that a run's first call does not wait for it.
 *
 * Extism keeps the blocks a plugin allocates (its output, its host function requests) in host
 * memory without any bound: the thread counts what a call allocates and traps it past the call's
 * budget (an `overLimit` answer). A plugin's log lines go nowhere: they must not reach the
 * host's output. A runaway plugin is stopped by terminating the thread: the fuel meter's host
 * function (meter.ts), which a plugin built by the project calls every ~µs, does nothing here.
 */
const { module, hostNames, meter, channel: buffer } = workerData as PluginThreadData;
// Extism's CommonJS entry, as the host loads it (plugin-in-thread.ts).
const createPlugin = createRequire(import.meta.url)("@extism/extism") as typeof CreatePlugin;
const channel = openChannel(buffer);
const flags = channel.flags;

function send(kind: number, parts: string[]): void {
  if (!channel.write(kind, parts)) throw new Error(`a message to the host is larger than ${MAX_MESSAGE_BYTES} bytes`);
  Atomics.store(flags, TO_MAIN, 1);
  Atomics.notify(flags, TO_MAIN);
}

// A wake-up proves nothing: the host's notify for a message already taken may arrive late, while
// the thread waits for the next one. Only the flag says that a message is there.
function receive(): { kind: number; parts: string[] } {
  while (Atomics.exchange(flags, TO_WORKER, 0) === 0) Atomics.wait(flags, TO_WORKER, 0);
  return channel.read();
}

const text = (err: unknown): string => String((err as { message?: unknown } | null)?.message || err);

const user: Record<string, (context: CallContext, offset: bigint) => bigint | void> = { [meter]: () => {} };
for (const name of hostNames) {
  user[name] = (context, offset) => {
    const request = context.read(offset);
    send(Kind.host, [name, request === null ? "null" : request.text()]);
    return context.store(receive().parts[0]!);
  };
}

// The bytes a call's plugin has allocated through the kernel, and its budget (set per call).
let allocated = 0;
let budget = 0;
let overLimit = false;

// Extism's kernel imports (extism:host/env) reach the host's alloc through WebAssembly.instantiate:
// its alloc is wrapped there to count.
type Imports = Record<string, Record<string, unknown>>;
const webAssembly = (
  globalThis as unknown as { WebAssembly: { instantiate(module: unknown, imports?: Imports): Promise<unknown> } }
).WebAssembly;
const instantiateWasm = webAssembly.instantiate;
webAssembly.instantiate = (wasm, imports) => {
  const env = imports?.["extism:host/env"];
  if (env !== undefined) {
    const alloc = env.alloc as (length: bigint) => bigint;
    env.alloc = (length: bigint) => {
      allocated += Number(length);
      if (allocated > budget) {
        overLimit = true;
        throw new Error(`the plugin allocated more than ${budget} bytes of host memory in one call`);
      }
      return alloc(length);
    };
  }
  return instantiateWasm(wasm, imports);
};

const silent = { trace() {}, debug() {}, info() {}, warn() {}, error() {} } as unknown as Console;
const instantiate = (): Promise<Plugin> =>
  createPlugin(
    { wasm: [{ module }] },
    { useWasi: false, runInWorker: false, logger: silent, functions: { "extism:host/user": user } },
  );

async function serve(): Promise<never> {
  let plugin = await instantiate();
  let used = false;
  let spare: Plugin | null = null;
  send(Kind.ready, []);
  for (;;) {
    // Idle for IDLE_MS with no spare instance: make one now rather than during a run's first call.
    if (
      spare === null &&
      Atomics.load(flags, TO_WORKER) === 0 &&
      Atomics.wait(flags, TO_WORKER, 0, IDLE_MS) === "timed-out"
    ) {
      spare = await instantiate();
      continue;
    }
    const { kind, parts } = receive();
    try {
      if (kind === Kind.freshCall && used) {
        await plugin.close();
        plugin = spare ?? (await instantiate());
        spare = null;
      }
      used = true;
      allocated = 0;
      budget = Number(parts[2]);
      overLimit = false;
      await plugin.reset();
      const output = await plugin.call(parts[0]!, parts[1]!);
      send(Kind.done, [output === null ? "" : output.text()]);
    } catch (err) {
      send(overLimit ? Kind.overLimit : Kind.error, [text(err)]);
    }
  }
}

serve().catch((err: unknown) => send(Kind.fatal, [text(err)]));
