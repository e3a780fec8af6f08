import { programBytes } from "../model/index.js";
import type { ProgramInput } from "../app/index.js";
import type { AgentActions, ManifestSet } from "../manifest/index.js";
import { CountersignError } from "../model/index.js";
import type { Facts } from "../model/index.js";
import { AnalysisWorker, WorkerTimeout } from "./analysis-worker.js";
import { analysisThreads } from "./limits.js";

export interface PoolOptions {
  manifests: ManifestSet;
  size?: number; // threads; default one per core
  /** A program still in analysis after this long has overrun its budget: its thread is terminated and replaced. */
  timeoutMs: number;
  codeCacheDir?: string;
  /** Programs waiting for a thread beyond this are refused (503, retriable) instead of queued. */
  maxQueued?: number;
}

interface Job {
  program: ProgramInput;
  agent: AgentActions | undefined;
  resolve(facts: Facts): void;
  reject(err: unknown): void;
}

/**
 * Analysis off the event loop: a pool of worker threads, each with a warm analyzer for the
 * manifests in force. Programs queue for the next free thread. A thread that overruns the time
 * limit is terminated and replaced, and its program gets an `analysis_budget_exceeded`
 * diagnostic; a thread that dies is replaced too. `setManifests` starts a new set of threads and
 * switches to it once all of them are ready (the old ones finish what they run). The threads
 * start with `warm()`, so that a server can answer before the compiler has loaded.
 */
export class AnalysisPool {
  readonly #options: PoolOptions;
  readonly #size: number;
  #manifests: ManifestSet;
  #workers: AnalysisWorker[] = [];
  readonly #queue: Job[] = [];
  readonly #assigned = new Set<AnalysisWorker>(); // running a program, or about to once it is ready
  #closed = false;
  #isWarm = false;

  private constructor(options: PoolOptions) {
    this.#options = options;
    this.#size = analysisThreads(options.size);
    this.#manifests = options.manifests;
  }

  /** A pool whose threads start with `warm()`; programs submitted before then wait for them. */
  static create(options: PoolOptions): AnalysisPool {
    return new AnalysisPool(options);
  }

  /**
   * Start the threads (once); resolves when every one has its analyzer, rejects when one could
   * not start. Programs already queued go to the threads at once and wait for their analyzers;
   * a thread that failed to start is replaced when the next program comes.
   */
  warm(): Promise<void> {
    if (this.#closed)
      return Promise.reject(new CountersignError("internal_error", "authority", "the analysis pool is closed"));
    if (this.#workers.length === 0)
      this.#workers = Array.from(
        { length: this.#size },
        () => new AnalysisWorker(this.#manifests, this.#options.codeCacheDir),
      );
    this.#dispatch();
    return Promise.all(this.#workers.map((w) => w.ready)).then(() => void (this.#isWarm = true));
  }

  /** Every thread had its analyzer once (`warm()` resolved): programs no longer wait for the compiler to load. */
  get isWarm(): boolean {
    return this.#isWarm;
  }

  get size(): number {
    return this.#size;
  }

  /** The facts of `program`; `agent`: the agent actions it was submitted with, already checked (app's manifestsFor). */
  analyze(program: ProgramInput, agent?: AgentActions): Promise<Facts> {
    if (this.#closed)
      return Promise.reject(new CountersignError("internal_error", "authority", "the analysis pool is closed"));
    if (this.#queue.length >= (this.#options.maxQueued ?? 10_000)) {
      return Promise.reject(
        new CountersignError(
          "resource_limit_exceeded",
          "authority",
          "too many programs are waiting for analysis: try again shortly",
          { retriable: true, details: { reason: "busy" } },
        ),
      );
    }
    return new Promise<Facts>((resolve, reject) => {
      this.#queue.push({ program, agent, resolve, reject });
      this.#dispatch();
    });
  }

  /** Switch to threads analyzing against `manifests`; throws (keeping the current ones) if they cannot start. */
  async setManifests(manifests: ManifestSet): Promise<void> {
    const fresh = await this.#startSet(manifests);
    const old = this.#workers;
    this.#manifests = manifests;
    this.#workers = fresh;
    // a busy one is terminated when its program is done
    for (const w of old) if (!this.#assigned.has(w)) void w.terminate();
    this.#dispatch();
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.splice(0))
      job.reject(
        new CountersignError("internal_error", "authority", "the authority is shutting down", { retriable: true }),
      );
    await Promise.all(this.#workers.map((w) => w.terminate()));
  }

  async #startSet(manifests: ManifestSet): Promise<AnalysisWorker[]> {
    const workers = Array.from({ length: this.#size }, () => new AnalysisWorker(manifests, this.#options.codeCacheDir));
    try {
      await Promise.all(workers.map((w) => w.ready));
    } catch (err) {
      await Promise.all(workers.map((w) => w.terminate()));
      throw new CountersignError("internal_error", "authority", (err as Error).message, { cause: err });
    }
    return workers;
  }

  #dispatch(): void {
    for (let i = 0; i < this.#workers.length && this.#queue.length > 0; i++) {
      let worker = this.#workers[i]!;
      if (!worker.alive) worker = this.#workers[i] = this.#replacement();
      if (this.#assigned.has(worker)) continue;
      this.#assigned.add(worker);
      void this.#run(worker, this.#queue.shift()!);
    }
  }

  async #run(worker: AnalysisWorker, job: Job): Promise<void> {
    const { source, entry } = job.program;
    try {
      await worker.ready;
      job.resolve(await worker.analyze(source, entry, this.#options.timeoutMs, job.agent));
    } catch (err) {
      if (err instanceof WorkerTimeout) job.resolve(overrun(job.program, this.#options.timeoutMs));
      else
        job.reject(
          new CountersignError("internal_error", "analysis", (err as Error).message, { retriable: true, cause: err }),
        );
    }
    this.#assigned.delete(worker);
    if (!this.#workers.includes(worker)) void worker.terminate(); // retired by setManifests
    if (!this.#closed) this.#dispatch();
  }

  /** A new thread in place of one that died or overran; the programs queued meanwhile wait for it. */
  #replacement(): AnalysisWorker {
    const worker = new AnalysisWorker(this.#manifests, this.#options.codeCacheDir);
    void worker.ready.then(
      () => this.#dispatch(),
      () => undefined, // it is replaced again at the next dispatch
    );
    return worker;
  }
}

/** The facts of a program whose analysis had to be stopped: refused, like any program past its budget. */
function overrun(program: ProgramInput, timeoutMs: number): Facts {
  return {
    program: { sha256: programBytes(program.source).sha256, entry: program.entry },
    ok: false,
    diagnostics: [
      {
        severity: "error",
        code: "analysis_budget_exceeded",
        message: `the analysis ran for more than ${timeoutMs} ms and was stopped: simplify the program (fewer nested loops or calls, smaller types)`,
        line: 1,
        column: 1,
      },
    ],
    effects: [],
    guarantees: [],
    summary: [],
    rationale: "",
  };
}
