import { programBytes } from "../model/index.js";
import { availableParallelism } from "node:os";
import { decideAndSign, type Evaluation, type ProgramInput, type ReceiptOrder } from "../app/index.js";
import type { AgentActions, ManifestSet } from "../manifest/index.js";
import { CountersignError } from "../model/index.js";
import type { Facts } from "../model/index.js";
import type { Policy } from "../policy/index.js";
import { AnalysisWorker, WorkerTimeout } from "./analysis-worker.js";

export interface PoolOptions {
  manifests: ManifestSet;
  size?: number; // threads; default one per core
  /** A program still in analysis after this long has overrun its budget: its thread is terminated and replaced. */
  timeoutMs: number;
  codeCacheDir?: string;
  /** Programs waiting for a thread beyond this are refused (503, retriable) instead of queued. */
  maxQueued?: number;
}

/** Submissions a thread may hold at once when it has their facts already (decided and signed in well under a millisecond). */
const PIPELINED = 16;
/** How far down the queue a free slot looks for such a submission. */
const LOOKAHEAD = 64;

interface Job {
  program: ProgramInput;
  key: string | undefined; // an evaluation's facts key (AnalysisWorker.holds); none for a bare analysis
  run(worker: AnalysisWorker, timeoutMs: number): Promise<unknown>;
  overrun(facts: Facts): unknown; // the answer when the thread had to be stopped
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

/**
 * Analysis off the event loop: a pool of worker threads, each with a warm analyzer for the
 * manifests in force. Programs queue for the next free thread. A thread that overruns the time
 * limit is terminated and replaced, and its program gets an `analysis_budget_exceeded`
 * diagnostic; a thread that dies is replaced too. `setManifests` starts a new set of threads and
 * switches to it once all of them are ready (the old ones finish what they run).
 */
export class AnalysisPool {
  readonly #options: PoolOptions;
  readonly #size: number;
  #manifests: ManifestSet;
  #workers: AnalysisWorker[] = [];
  readonly #queue: Job[] = [];
  // Per thread: the jobs sent to it, and whether one of them may be an analysis (then it runs that alone).
  readonly #assigned = new Map<AnalysisWorker, { jobs: number; exclusive: boolean }>();
  #closed = false;

  private constructor(options: PoolOptions) {
    this.#options = options;
    this.#size = Math.max(1, options.size ?? availableParallelism());
    this.#manifests = options.manifests;
  }

  /** Start every thread and wait until each has its analyzer. */
  static async start(options: PoolOptions): Promise<AnalysisPool> {
    const pool = new AnalysisPool(options);
    pool.#workers = await pool.#startSet(options.manifests);
    return pool;
  }

  get size(): number {
    return this.#size;
  }

  /** The facts of `program`; `agent`: the agent actions it was submitted with, already checked (app's manifestsFor). */
  analyze(program: ProgramInput, agent?: AgentActions): Promise<Facts> {
    return this.#enqueue(
      program,
      undefined,
      (worker, timeoutMs) => worker.analyze(program.source, program.entry, timeoutMs, agent),
      (facts) => facts,
    );
  }

  /**
   * A submission's facts, `policy`'s decision and the receipt `order` asks for, all worked out on
   * a thread (see AnalysisWorker.evaluate); a program that overruns is refused as in `analyze`.
   * A thread that has the program's facts takes several such submissions at once: a thread
   * woken for each one took the event loop's core from it on a busy machine.
   */
  evaluate(program: ProgramInput, agent: AgentActions | undefined, policy: Policy, order: ReceiptOrder | undefined): Promise<Evaluation> {
    const key = factsKey(program, agent);
    return this.#enqueue(
      program,
      key,
      (worker, timeoutMs) => worker.evaluate(program, key, agent, policy, order, timeoutMs),
      (facts) => ({ facts, ...decideAndSign(facts, policy, this.#manifests) }),
    );
  }

  #enqueue<T>(program: ProgramInput, key: string | undefined, run: (worker: AnalysisWorker, timeoutMs: number) => Promise<T>, overrun: (facts: Facts) => T): Promise<T> {
    if (this.#closed) return Promise.reject(new CountersignError("internal_error", "authority", "the analysis pool is closed"));
    if (this.#queue.length >= (this.#options.maxQueued ?? 10_000)) {
      return Promise.reject(
        new CountersignError("resource_limit_exceeded", "authority", "too many programs are waiting for analysis: try again shortly", { retriable: true, details: { reason: "busy" } }),
      );
    }
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ program, key, run, overrun, resolve: resolve as (value: unknown) => void, reject });
      this.#dispatch();
    });
  }

  /** Switch to threads analyzing against `manifests`; throws (keeping the current ones) if they cannot start. */
  async setManifests(manifests: ManifestSet): Promise<void> {
    const fresh = await this.#startSet(manifests);
    const old = this.#workers;
    this.#manifests = manifests;
    this.#workers = fresh;
    for (const w of old) if (!this.#assigned.has(w)) void w.terminate(); // a busy one is terminated when its program is done
    this.#dispatch();
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.splice(0)) job.reject(new CountersignError("internal_error", "authority", "the authority is shutting down", { retriable: true }));
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

  /**
   * Programs go to free threads in arrival order, one each. Besides, a submission whose facts a
   * thread holds joins that thread while it runs only such submissions, up to PIPELINED.
   */
  #dispatch(): void {
    if (this.#closed) return;
    for (let i = 0; i < this.#workers.length; i++) if (!this.#workers[i]!.alive) this.#workers[i] = this.#replacement();
    for (let i = 0; i < this.#queue.length && i < LOOKAHEAD; ) {
      const job = this.#queue[i]!;
      const worker = this.#placeFor(job);
      if (worker === undefined) {
        i++;
        continue;
      }
      this.#queue.splice(i, 1);
      const load = this.#assigned.get(worker) ?? { jobs: 0, exclusive: false };
      this.#assigned.set(worker, { jobs: load.jobs + 1, exclusive: load.exclusive || !(job.key !== undefined && worker.holds(job.key)) });
      void this.#run(worker, job);
    }
  }

  #placeFor(job: Job): AnalysisWorker | undefined {
    let free: AnalysisWorker | undefined;
    for (const worker of this.#workers) {
      const load = this.#assigned.get(worker);
      const holds = job.key !== undefined && worker.holds(job.key);
      if (load === undefined) {
        if (holds) return worker;
        free ??= worker;
      } else if (holds && !load.exclusive && load.jobs < PIPELINED) return worker;
    }
    return free;
  }

  async #run(worker: AnalysisWorker, job: Job): Promise<void> {
    try {
      await worker.ready;
      job.resolve(await job.run(worker, this.#options.timeoutMs));
    } catch (err) {
      if (err instanceof WorkerTimeout) job.resolve(job.overrun(overrun(job.program, this.#options.timeoutMs)));
      else if (err instanceof CountersignError) job.reject(err); // the decision's or the receipt's own refusal
      else job.reject(new CountersignError("internal_error", "analysis", (err as Error).message, { retriable: true, cause: err }));
    }
    const load = this.#assigned.get(worker)!;
    if (load.jobs > 1) this.#assigned.set(worker, { jobs: load.jobs - 1, exclusive: load.exclusive });
    else this.#assigned.delete(worker);
    if (!this.#workers.includes(worker) && !this.#assigned.has(worker)) void worker.terminate(); // retired by setManifests
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

/** What a thread's facts cache keys a submission by, beside its own manifests and analyzer. */
function factsKey(program: ProgramInput, agent: AgentActions | undefined): string {
  return `${programBytes(program.source).sha256}:${agent?.sha256 ?? ""}:${program.entry}`;
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
