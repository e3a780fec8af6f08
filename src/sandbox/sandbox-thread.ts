import { Worker } from "node:worker_threads";
import { threadModule } from "../model/thread-module.js";
import type { FromWorker, ToWorker } from "./worker-protocol.js";

const MIB = 1024 * 1024;

/** A run's program memory unless its limits say otherwise (limits.ts). */
export const DEFAULT_MEMORY_BYTES = 64 * MIB;

/**
 * The V8 heap of a sandbox thread, in MiB. The QuickJS instance's memory is its own (capped by
 * its maximum, quickjs.ts); the heap holds the host code and what the host reads out of the
 * instance (a program's string can be as large as its memory, twice that as UTF-16).
 */
export function heapMiB(memoryBytes: number): number {
  return 64 + 3 * Math.ceil(memoryBytes / MIB);
}

function startWorker(memoryBytes: number): Worker {
  const resourceLimits = { maxOldGenerationSizeMb: heapMiB(memoryBytes), maxYoungGenerationSizeMb: 16 };
  return new Worker(...threadModule(import.meta.url, "./sandbox-worker", { resourceLimits }));
}

/**
 * One sandbox thread (sandbox-worker.ts), seen from the thread that runs programs. It serves one
 * run at a time; `listen` takes its messages for that run, and `gone` tells how it ended when it
 * ends (terminated, out of heap, crashed).
 */
export class SandboxThread {
  readonly ready: Promise<void>;
  #listener: ((message: FromWorker) => void) | undefined;
  #onGone: ((error: Error | undefined) => void) | undefined;
  #failure: Error | undefined;
  exited = false;
  readonly #worker: Worker;

  constructor(readonly memoryBytes: number) {
    this.#worker = startWorker(memoryBytes);
    let started: () => void;
    let failed: (err: Error) => void;
    this.ready = new Promise<void>((resolve, reject) => {
      started = resolve;
      failed = reject;
    });
    this.ready.catch(() => undefined);
    this.#worker.on("message", (message: FromWorker) => {
      if (message.type === "ready") started();
      else this.#listener?.(message);
    });
    this.#worker.on("error", (err) => {
      this.#failure ??= err;
    });
    this.#worker.on("exit", () => {
      this.exited = true;
      failed(this.#failure ?? new Error("the sandbox thread stopped"));
      this.#onGone?.(this.#failure);
    });
  }

  post(message: ToWorker): void {
    this.#worker.postMessage(message);
  }

  /** Take the thread's messages and its end for one run. */
  listen(listener: (message: FromWorker) => void, gone: (error: Error | undefined) => void): void {
    this.#listener = listener;
    this.#onGone = gone;
    if (this.exited) gone(this.#failure);
  }

  release(): void {
    this.#listener = undefined;
    this.#onGone = undefined;
  }

  /** Stop the thread at once, wherever its code is (a native loop included). */
  terminate(): void {
    this.release();
    this.exited = true;
    void this.#worker.terminate();
  }

  /** An idle thread does not keep the process alive; one serving a run does. */
  hold(held: boolean): void {
    if (held) this.#worker.ref();
    else this.#worker.unref();
  }
}

// One idle thread is kept for the next run (starting one loads the sandbox's modules again).
let idle: SandboxThread | undefined;

/** A thread for a run with `memoryBytes` of program memory: the idle one when it fits, else a new one. */
export function takeThread(memoryBytes: number): SandboxThread {
  const thread = idle;
  idle = undefined;
  if (thread !== undefined && !thread.exited && thread.memoryBytes === memoryBytes) {
    thread.hold(true);
    return thread;
  }
  thread?.terminate();
  const fresh = new SandboxThread(memoryBytes);
  fresh.hold(true);
  return fresh;
}

/** A thread whose run ended cleanly: kept for the next run, or stopped if one is kept already. */
export function giveBack(thread: SandboxThread): void {
  thread.release();
  if (thread.exited) return;
  if (idle !== undefined && !idle.exited) {
    thread.terminate();
    return;
  }
  thread.hold(false);
  idle = thread;
}

/**
 * Start a sandbox thread for runs with `memoryBytes` of program memory, kept idle for the run to
 * take: it loads its modules (a few hundred milliseconds) while the program is checked and
 * submitted. This module loads little, so the caller can start it first. Best effort.
 */
export function warmThread(memoryBytes = DEFAULT_MEMORY_BYTES): void {
  if (!Number.isSafeInteger(memoryBytes) || memoryBytes <= 0) return;
  giveBack(takeThread(memoryBytes));
}
