import type { CallContext, Plugin, createPlugin as CreatePlugin } from "@extism/extism";
import { createRequire } from "node:module";
import { createContext, Script } from "node:vm";
import type { WasmModule } from "../model/index.js";
import { READ_ONLY_HOST_FUNCTIONS, type HostHandler, type SuccessAnswer } from "./host-functions.js";
import { importsMeter, METER_FUNCTION } from "./meter.js";
import type { WorkerCallResult } from "./plugin-worker.js";

/**
 * What one call in the host's thread ended with: as a worker's call, or `slice` when it ran past
 * its slice and was stopped there; `changed` says whether it had changed something by then
 * (then it must not be made again).
 */
export type InThreadResult = WorkerCallResult | { ok: false; slice: true; changed: boolean };

/**
 * Extism's CommonJS entry, loaded on first use. It loads node:wasi (never used here: plugins get
 * no WASI), whose ExperimentalWarning would print on the host's stderr, in the middle of a
 * command's output: that one warning is dropped while it loads.
 */
let extism: typeof CreatePlugin | undefined;
function loadExtism(): typeof CreatePlugin {
  if (extism !== undefined) return extism;
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (!String(warning).includes("WASI"))
      (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    extism = createRequire(import.meta.url)("@extism/extism") as typeof CreatePlugin;
  } finally {
    process.emitWarning = emitWarning;
  }
  return extism;
}

const silent = { trace() {}, debug() {}, info() {}, warn() {}, error() {} } as unknown as Console;

// One context and script for every call: only the call runs in it (as the analyzer's hard deadline does).
const SLICE_CONTEXT = createContext({ f: undefined as (() => unknown) | undefined });
const SLICE_SCRIPT = new Script("f()");

/**
 * One plugin run by Extism in the host's own thread: a call costs the plugin's own work, where a
 * call in a worker crosses threads two to four times, each a futex wake-up that may wait for a
 * core. It is for plugins whose host functions all answer synchronously (the fs ones): Extism
 * calls them from inside the wasm, which cannot wait for a promise.
 *
 * A call may run for `sliceMs`. A plugin built with the project's fuel meter (meter.ts: the
 * shipped connectors, trusted and hash-pinned) calls the meter's host function every ~µs of its
 * work, and that function, like every host function, throws once the slice has passed: the call
 * ends there. Any other plugin runs inside a `node:vm` timeout of `sliceMs`: V8 terminates
 * whatever runs then, wasm loops and host functions included, at the price of a watchdog thread
 * Node starts and joins per call. Either way the instance is dropped after a
 * stop (its state is whatever the interruption left), as it is after any failed call.
 *
 * A change a host function makes (fs_write) waits: the plugin gets its success answer at once
 * (`answers`), and the change is made when the call ends, or before the plugin's next host
 * function call, in the order asked. A call stopped at its slice has then usually changed nothing
 * and may be made again elsewhere: a stall of the thread (the slice is wall-clock time) costs a
 * retry, never a failed write. Should a change fail when it is made, its error decides the call.
 * Everything else is as in the worker (plugin-thread.ts): Extism's
 * call state is reset before each call, a `fresh` call gets an instance no call has used (made
 * ahead, when the thread is idle), what the plugin allocates in host memory is counted and bounded
 * per call, and its log lines go nowhere.
 */
export class InThreadPlugin {
  #used = false;
  #spare: Promise<Instance> | null = null; // being made or made
  #spareTimer: NodeJS.Timeout | undefined; // set while the thread has not been idle long enough to make it
  #current!: Instance;
  /** Whether the plugin has the fuel meter, and so runs without the vm timeout. */
  readonly metered: boolean;

  readonly #module: WasmModule;
  readonly #handlers: Record<string, HostHandler>;
  readonly #answers: Readonly<Record<string, SuccessAnswer>>;

  private constructor(
    module: WasmModule,
    handlers: Record<string, HostHandler>,
    answers: Readonly<Record<string, SuccessAnswer>>,
  ) {
    this.#module = module;
    this.#handlers = handlers;
    this.#answers = answers;
    this.metered = importsMeter(module);
  }

  static async create(
    module: WasmModule,
    handlers: Record<string, HostHandler>,
    answers: Readonly<Record<string, SuccessAnswer>> = {},
  ): Promise<InThreadPlugin> {
    const plugin = new InThreadPlugin(module, handlers, answers);
    plugin.#current = await plugin.#instantiate();
    return plugin;
  }

  async call(fn: string, input: string, sliceMs: number, fresh: boolean, hostBytes: number): Promise<InThreadResult> {
    if (fresh && this.#used) await this.replace();
    this.#used = true;
    const instance = this.#current;
    instance.budget = hostBytes;
    instance.allocated = 0;
    instance.overLimit = false;
    instance.changed = false;
    instance.waiting = [];
    instance.stopped = false;
    await instance.plugin.reset();
    instance.deadline = performance.now() + sliceMs;
    // Extism runs the export synchronously, inside plugin.call: it has ended when this returns.
    const pending = this.metered ? instance.plugin.call(fn, input) : inSlice(instance, fn, input, sliceMs);
    instance.deadline = Infinity;
    if (instance.stopped) {
      pending.catch(() => undefined); // its failure is the stop's
      await this.replace(); // stopped anywhere: nothing of this instance is used again
      return { ok: false, slice: true, changed: instance.changed };
    }
    makeChanges(instance); // the call ended: it returned, failed or trapped, as it would have in a worker
    try {
      const output = (await pending) as { text(): string } | null;
      return { ok: true, output: output === null ? "" : output.text() };
    } catch (err) {
      await this.replace(); // a trap may leave the instance's state inconsistent
      return { ok: false, message: String((err as Error)?.message ?? err), overLimit: instance.overLimit };
    }
  }

  /** Drop the current instance (after a trap, a stop, or before another scope's call). */
  async replace(): Promise<void> {
    clearTimeout(this.#spareTimer);
    this.#spareTimer = undefined;
    const next = this.#spare ?? this.#instantiate();
    this.#spare = null;
    await this.#current.plugin.close();
    this.#current = await next;
    this.#used = false;
    this.#makeSpareWhenIdle();
  }

  async close(): Promise<void> {
    clearTimeout(this.#spareTimer);
    this.#spareTimer = undefined;
    await this.#current.plugin.close();
    const spare = this.#spare;
    this.#spare = null;
    if (spare !== null) await (await spare).plugin.close();
  }

  /** The next fresh instance, made once the thread has been idle a moment rather than during a run's calls. */
  #makeSpareWhenIdle(): void {
    if (this.#spare !== null || this.#spareTimer !== undefined) return;
    // The timer keeps no process alive: nothing awaits it (replace makes an instance itself meanwhile).
    this.#spareTimer = setTimeout(() => {
      this.#spareTimer = undefined;
      this.#spare = this.#instantiate();
      this.#spare.catch(() => undefined); // a failure shows when it is used
    }, IDLE_MS).unref();
  }

  async #instantiate(): Promise<Instance> {
    const instance: Instance = {
      plugin: undefined as unknown as Plugin,
      counted: false,
      budget: 0,
      allocated: 0,
      overLimit: false,
      changed: false,
      waiting: [],
      deadline: Infinity,
      stopped: false,
    };
    const user: Record<string, (context: CallContext, offset: bigint) => bigint | void> = {};
    user[METER_FUNCTION] = () => stopPastDeadline(instance);
    for (const [name, handle] of Object.entries(this.#handlers)) {
      const readOnly = READ_ONLY_HOST_FUNCTIONS.has(name);
      const success = this.#answers[name];
      user[name] = (context, offset) => {
        stopPastDeadline(instance);
        const request = context.read(offset)?.text() ?? "null";
        makeChanges(instance); // what the plugin asked for earlier is done before it asks anything else
        const early = readOnly || success === undefined ? null : success(request);
        if (early !== null) {
          instance.waiting.push(() => synchronous(name, handle(request)));
          return context.store(early);
        }
        if (!readOnly) instance.changed = true;
        return context.store(synchronous(name, handle(request)));
      };
    }
    // Extism binds each host function to the plugin's call context before it instantiates the
    // module: the one moment to give that context an `alloc` that counts (its kernel's alloc
    // calls this.alloc), so that host memory is bounded per call as in the worker.
    const fn = user[METER_FUNCTION]!;
    fn.bind = ((self: unknown, context: CallContext) => {
      countAllocations(context, instance);
      return Function.prototype.bind.call(fn, self, context);
    }) as typeof fn.bind;
    instance.plugin = await loadExtism()(
      { wasm: [{ module: this.#module }] },
      { useWasi: false, runInWorker: false, logger: silent, functions: { "extism:host/user": user } },
    );
    if (!instance.counted) {
      await instance.plugin.close();
      throw new Error("cannot bound the plugin's host memory: Extism did not bind its host functions as expected");
    }
    return instance;
  }
}

/** How long the thread is idle before the next fresh instance is made. */
const IDLE_MS = 3;

interface Instance {
  plugin: Plugin;
  counted: boolean; // its context's alloc counts
  budget: number; // host memory the current call may allocate
  allocated: number;
  overLimit: boolean;
  changed: boolean; // the current call has changed something
  waiting: (() => void)[]; // changes the current call asked for, not made yet
  deadline: number; // the end of the current call's slice (performance.now() time)
  stopped: boolean; // the current call ran past its slice and was stopped
}

/** A metered call's check: past its slice, the call ends here (a throw unwinds the wasm to plugin.call). */
function stopPastDeadline(instance: Instance): void {
  if (performance.now() < instance.deadline) return;
  instance.stopped = true;
  throw new Error("the call ran past its slice");
}

/** An unmetered call, inside a vm timeout of `sliceMs` (see InThreadPlugin). */
function inSlice(instance: Instance, fn: string, input: string, sliceMs: number): Promise<unknown> {
  let pending: Promise<unknown> | undefined;
  SLICE_CONTEXT.f = () => (pending = instance.plugin.call(fn, input));
  try {
    return SLICE_SCRIPT.runInContext(SLICE_CONTEXT, { timeout: Math.max(1, Math.ceil(sliceMs)) }) as Promise<unknown>;
  } catch (err) {
    if ((err as { code?: unknown }).code !== "ERR_SCRIPT_EXECUTION_TIMEOUT") throw err;
    instance.stopped = true;
    // The timeout may fire just after the call has ended (failed): its rejection is the stop's now.
    pending?.catch(() => undefined);
    return Promise.resolve();
  } finally {
    SLICE_CONTEXT.f = undefined;
  }
}

/** Make the changes the call has asked for so far, in order; each one's failure is recorded by its handler. */
function makeChanges(instance: Instance): void {
  for (const change of instance.waiting.splice(0)) {
    instance.changed = true;
    change();
  }
}

function synchronous(name: string, answer: string | Promise<string>): string {
  // the pool runs such plugins in a worker
  if (typeof answer !== "string") throw new Error(`${name} does not answer synchronously`);
  return answer;
}

function countAllocations(context: CallContext, instance: Instance): void {
  const alloc = (Object.getPrototypeOf(context) as { alloc(size: bigint | number): bigint }).alloc;
  Object.defineProperty(context, "alloc", {
    value: (size: bigint | number): bigint => {
      instance.allocated += Number(size);
      if (instance.allocated > instance.budget) {
        instance.overLimit = true;
        throw new Error(`the plugin allocated more than ${instance.budget} bytes of host memory in one call`);
      }
      return alloc.call(context, size);
    },
  });
  instance.counted = true;
}
