import { Worker } from "node:worker_threads";
import type { AgentActions, ManifestSet } from "../manifest/index.js";
import type { Facts } from "../model/index.js";
import { threadModule } from "../model/thread-module.js";
import type { AnalysisJob, AnalysisThreadData, FromAnalysisThread } from "./analysis-thread.js";

/** Why a worker gave no facts: it overran its time (and was stopped), or it failed. */
export class WorkerTimeout extends Error {}
export class WorkerFailed extends Error {}

let nextJob = 0;

/**
 * One analysis thread (analysis-thread.ts) with a warm analyzer for one manifest set. It runs one program at a time;
 * a program that overruns `timeoutMs` terminates the thread (the caller replaces it).
 */
export class AnalysisWorker {
  readonly manifests: ManifestSet;
  readonly ready: Promise<void>;
  #worker: Worker;
  #pending: { id: number; resolve(facts: Facts): void; reject(err: Error): void } | undefined;
  #dead: string | undefined;

  constructor(manifests: ManifestSet, codeCacheDir: string | undefined) {
    this.manifests = manifests;
    const workerData: AnalysisThreadData = { codeCache: codeCacheDir ?? null, manifests };
    this.#worker = new Worker(...threadModule(import.meta.url, "./analysis-thread", { workerData }));
    this.#worker.unref(); // an idle worker never keeps the process alive
    let started: { resolve(): void; reject(err: Error): void } | undefined;
    this.ready = new Promise<void>((resolve, reject) => (started = { resolve, reject }));
    this.ready.catch(() => undefined); // observed by whoever awaits it; never an unhandled rejection
    this.#worker.on("message", (message: FromAnalysisThread) => {
      if (message.kind === "ready") started?.resolve();
      else if (message.kind === "fatal") this.#die(`the analysis worker could not start: ${message.message}`, started);
      else if (this.#pending?.id === message.id) {
        const pending = this.#pending;
        this.#pending = undefined;
        if (message.kind === "done") pending.resolve(message.facts);
        else pending.reject(new WorkerFailed(`the analysis failed: ${message.message}`));
      }
    });
    this.#worker.on("error", (err) => this.#die(`the analysis worker failed: ${err.message}`, started));
    this.#worker.on("exit", (code) => this.#die(`the analysis worker exited (code ${code})`, started));
  }

  get alive(): boolean {
    return this.#dead === undefined;
  }

  /**
   * The facts of one program (with `agent`, its agent actions beside the thread's manifests), or WorkerTimeout (the
   * thread is gone then) / WorkerFailed.
   */
  analyze(source: Uint8Array | string, entry: string, timeoutMs: number, agent?: AgentActions): Promise<Facts> {
    if (this.#dead !== undefined) return Promise.reject(new WorkerFailed(this.#dead));
    if (this.#pending !== undefined) return Promise.reject(new Error("an analysis worker runs one program at a time"));
    const id = ++nextJob;
    return new Promise<Facts>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (this.#pending?.id !== id) return;
        this.#pending = undefined;
        reject(new WorkerTimeout(`the analysis ran for more than ${timeoutMs} ms`));
        void this.terminate();
      }, timeoutMs);
      const settle =
        <T>(fn: (value: T) => void) =>
        (value: T) => {
          clearTimeout(timer);
          fn(value);
        };
      this.#pending = { id, resolve: settle(resolve), reject: settle(reject) };
      this.#worker.ref(); // a program in analysis keeps the process alive until it is done
      const job: AnalysisJob = { id, source, entry, agent: agent ?? null };
      this.#worker.postMessage(job);
    }).finally(() => {
      if (this.#pending === undefined) this.#worker.unref();
    });
  }

  async terminate(): Promise<void> {
    this.#die("the analysis worker was stopped");
    await this.#worker.terminate();
  }

  #die(why: string, started?: { reject(err: Error): void }): void {
    this.#dead ??= why;
    started?.reject(new WorkerFailed(why));
    const pending = this.#pending;
    this.#pending = undefined;
    pending?.reject(new WorkerFailed(why));
  }
}
