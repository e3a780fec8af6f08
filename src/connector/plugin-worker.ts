import { Worker } from "node:worker_threads";
import { METER_FUNCTION } from "./meter.js";
import {
  Kind,
  MAX_MESSAGE_BYTES,
  newChannelBuffer,
  openChannel,
  TO_MAIN,
  TO_WORKER,
  type Channel,
} from "./plugin-channel.js";
import type { PluginThreadData } from "./plugin-thread.js";
import type { WasmModule } from "../model/index.js";
import { threadModule } from "../model/thread-module.js";

/**
 * What one call ended with: the plugin's output, or the error text Extism raised (a trap,
 * error_set); `overLimit` when the trap was the worker's, for host memory past the call's budget.
 */
export type WorkerCallResult = { ok: true; output: string } | { ok: false; message: string; overLimit: boolean };

/**
 * The host's side of the plugin's host function calls: the function's name and request text in, the response text out;
 * it must not throw.
 */
export type HostAnswer = (name: string, request: string) => string | Promise<string>;

export class PluginWorkerTimeout extends Error {}
export class PluginWorkerGone extends Error {}
/** A message larger than the channel may grow: the call in progress cannot go on. */
export class PluginWorkerTooLarge extends Error {}

// Atomics.waitAsync (ES2024; in Node since 16) is not in the project's lib.
const waitAsync = (
  Atomics as unknown as {
    waitAsync(
      array: Int32Array,
      index: number,
      value: number,
      timeout: number,
    ): { async: false; value: string } | { async: true; value: Promise<string> };
  }
).waitAsync;

/**
 * How long the host blocks its thread waiting for the worker's next message before it waits
 * asynchronously: a plugin's step (its call, up to a host function request) usually takes less.
 */
const SYNC_WAIT_MS = 2;

/**
 * One plugin in a long-lived worker thread of its own, called over a SharedArrayBuffer and
 * Atomics (see plugin-channel.ts and plugin-thread.ts): a call costs a wake-up of the
 * worker and one of the host (which blocks for the answer a short while, see SYNC_WAIT_MS), far
 * less than a message round trip through both event loops, and its text is copied once each way.
 * Calls must not overlap (the pool serializes them). A call past its deadline terminates the
 * thread: the plugin cannot run on.
 */
export class PluginWorker {
  readonly #channel: Channel;
  readonly #worker: Worker;
  #exited = false;
  #failure = "the plugin worker stopped";

  private constructor(module: WasmModule, hostNames: string[]) {
    const buffer = newChannelBuffer();
    this.#channel = openChannel(buffer);
    const workerData: PluginThreadData = { module, hostNames, meter: METER_FUNCTION, channel: buffer };
    // None of the host's flags (loaders, --input-type): the thread runs only its own module.
    this.#worker = new Worker(...threadModule(import.meta.url, "./plugin-thread", { execArgv: [], workerData }));
    // The worker never keeps the process alive; during a call the deadline's timer does (see untilDeadline).
    this.#worker.unref();
    // the call in progress fails on "exit"
    this.#worker.on("error", (err) => (this.#failure = `the plugin worker failed: ${err.message}`));
    this.#worker.on("exit", () => {
      this.#exited = true;
      Atomics.store(this.#channel.flags, TO_MAIN, 1);
      Atomics.notify(this.#channel.flags, TO_MAIN);
    });
  }

  /** Start the thread and instantiate the plugin there; `deadline` is a performance.now() time. */
  static async start(module: WasmModule, hostNames: string[], deadline: number): Promise<PluginWorker> {
    const worker = new PluginWorker(module, hostNames);
    const first = await worker
      .#untilDeadline(deadline, () => worker.#receive(deadline))
      .catch(async (err: unknown) => {
        await worker.close();
        throw err;
      });
    if (first.kind !== Kind.ready) {
      await worker.close();
      throw new PluginWorkerGone(first.kind === Kind.fatal ? first.parts[0]! : "the plugin worker did not start");
    }
    return worker;
  }

  /**
   * Call export `fn`; host function requests are answered by `host` while the call runs. With
   * `fresh`, the call runs on a new plugin instance unless the current one has served no call yet.
   * The plugin may allocate at most `hostBytes` of host memory (Extism's blocks) during the call.
   */
  call(
    fn: string,
    input: string,
    deadline: number,
    host: HostAnswer,
    fresh: boolean,
    hostBytes: number,
  ): Promise<WorkerCallResult> {
    return this.#untilDeadline(deadline, (expired) =>
      this.#serve([fn, input, String(hostBytes)], deadline, host, fresh, expired),
    );
  }

  async #serve(
    call: string[],
    deadline: number,
    host: HostAnswer,
    fresh: boolean,
    expired: Promise<undefined>,
  ): Promise<WorkerCallResult> {
    this.#send(fresh ? Kind.freshCall : Kind.call, call);
    for (;;) {
      const { kind, parts } = await this.#receive(deadline);
      switch (kind) {
        case Kind.host:
          this.#send(Kind.response, [await this.#beforeDeadline(host(parts[0]!, parts[1]!), expired)]);
          break;
        case Kind.done:
          return { ok: true, output: parts[0]! };
        case Kind.error:
        case Kind.overLimit:
          return { ok: false, message: parts[0]!, overLimit: kind === Kind.overLimit };
        default:
          throw new PluginWorkerGone(
            kind === Kind.fatal ? parts[0]! : `unexpected message ${kind} from the plugin worker`,
          );
      }
    }
  }

  /**
   * Run `work` with one timer for the deadline: it keeps the process alive while the call runs
   * (Atomics.waitAsync alone does not hold Node's event loop open; ref() and unref() of the worker
   * cost tens of µs each) and `expired` settles when it fires.
   */
  async #untilDeadline<T>(deadline: number, work: (expired: Promise<undefined>) => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<undefined>(
      (resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - performance.now()), undefined)),
    );
    try {
      return await work(expired);
    } finally {
      clearTimeout(timer);
    }
  }

  /** A host function's answer, unless the deadline comes first (then the thread is stopped). */
  async #beforeDeadline(answer: string | Promise<string>, expired: Promise<undefined>): Promise<string> {
    const response = await Promise.race([answer, expired]);
    if (response !== undefined) return response;
    await this.close();
    throw new PluginWorkerTimeout("the plugin ran past its deadline");
  }

  async close(): Promise<void> {
    await this.#worker.terminate();
  }

  #send(kind: number, parts: string[]): void {
    if (this.#exited) throw new PluginWorkerGone("the plugin worker has stopped");
    if (!this.#channel.write(kind, parts))
      throw new PluginWorkerTooLarge(`a message to the plugin is larger than ${MAX_MESSAGE_BYTES} bytes`);
    Atomics.store(this.#channel.flags, TO_WORKER, 1);
    Atomics.notify(this.#channel.flags, TO_WORKER);
  }

  async #receive(deadline: number): Promise<{ kind: number; parts: string[] }> {
    const { flags } = this.#channel;
    for (;;) {
      const remaining = deadline - performance.now();
      if (remaining <= 0) {
        await this.close();
        throw new PluginWorkerTimeout("the plugin ran past its deadline");
      }
      // Most answers come within a fraction of a ms: blocking for them is a futex wake-up, where
      // waitAsync also needs a task through the event loop. Past SYNC_WAIT_MS the loop is free again.
      if (Atomics.wait(flags, TO_MAIN, 0, Math.min(remaining, SYNC_WAIT_MS)) === "timed-out") {
        const wait = waitAsync(flags, TO_MAIN, 0, remaining);
        if (wait.async) await wait.value;
      }
      if (Atomics.exchange(flags, TO_MAIN, 0) === 0) continue; // timed out, or a late wake-up: the loop decides
      if (this.#exited) throw new PluginWorkerGone(this.#failure);
      return this.#channel.read();
    }
  }
}
