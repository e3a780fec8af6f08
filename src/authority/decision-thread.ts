import { Worker } from "node:worker_threads";
import { decideAndSign, type ProgramDecision, type ReceiptOrder } from "../app/index.js";
import type { ManifestSet } from "../manifest/index.js";
import { CountersignError, type Facts, type PolicyDecision } from "../model/index.js";
import { threadModule } from "../model/thread-module.js";
import type { Policy } from "../policy/index.js";
import type {
  DecisionThreadAnswer,
  DecisionBatch,
  DecisionJob,
  DecisionThreadData,
  FromDecisionThread,
} from "./decision-worker.js";
import { ParsedJson } from "./parsed-json.js";

/**
 * Values a thread keeps, by id; the event loop keeps the same list, so each value crosses once.
 * Both sides add in the same order (job by job) and drop the oldest past this size, so the ids
 * a job names are always there when the thread reaches it.
 */
const KEPT_VALUES = 256;
/** The most submissions one message carries. */
const MAX_BATCH = 64;
/**
 * The thread answers what it decided so far after this long: a submission early in a large
 * batch need not wait for the whole batch (a busy turn brings dozens of decisions and
 * signatures), for one more message per this much work. Not less: a busy turn's usual batch then
 * comes back in one message and goes on to the store together, where answers every millisecond
 * split it into smaller commits and cost more CPU per submission (BENCHMARKS.md).
 */
const ANSWER_EVERY_MS = 5;

interface Waiting {
  job: DecisionJob;
  facts: Facts;
  resolve(evaluation: ProgramDecision): void;
  reject(err: unknown): void;
}

/** Decisions are texts, equal for a repeated program: parsed once each. */
const decisions = new ParsedJson<PolicyDecision>();

/**
 * The policy's decision and the receipt's signature, off the event loop, on one thread of their
 * own (decision-worker.ts). Not on the analysis threads: their isolates hold the compiler's heap,
 * which made every collection, and so every submission decided there, cost more CPU than it
 * saved the event loop.
 * Submissions that arrive in one turn of the event loop go as one message (a wake-up per
 * submission cost more than the decision on a busy machine); facts, policies, manifests and keys
 * cross once each. A thread that fails or overruns `timeoutMs` is stopped, every submission it
 * held gets a retriable internal_error (503), and the next one starts a new thread. Facts seen
 * for the first time (a program just analyzed) are decided in process: such a submission is
 * bound by its analysis, and sending new facts across cost more than deciding them here.
 */
export class DecisionThread {
  readonly #timeoutMs: number;
  #worker: Worker | undefined;
  #ready: Promise<void> | undefined;
  #ids = new WeakMap<object, number>();
  readonly #seen = new WeakSet<Facts>();
  #kept: number[] = []; // ids the thread keeps, oldest first
  #keptSet = new Set<number>();
  #nextId = 0;
  #queue: Waiting[] = [];
  #scheduled = false;
  readonly #inFlight = new Map<number, { batch: Waiting[]; timer: NodeJS.Timeout }>();
  #closed = false;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  /**
   * `facts`' decision by `policy` under `manifests` and, when ordered and auto-approved, the receipt signed with `key`.
   */
  evaluate(
    facts: Facts,
    policy: Policy,
    manifests: ManifestSet,
    order: ReceiptOrder | undefined,
  ): Promise<ProgramDecision> {
    if (this.#closed) return Promise.reject(stopped("the authority is shutting down"));
    if (!this.#seen.has(facts)) {
      this.#seen.add(facts);
      try {
        return Promise.resolve({ facts, ...decideAndSign(facts, policy, manifests, order) });
      } catch (err) {
        return Promise.reject(err);
      }
    }
    this.#start();
    const values: [number, unknown][] = [];
    const ref = (value: object): number => this.#ref(value, values);
    const job: DecisionJob = {
      facts: ref(facts),
      policy: ref(policy),
      manifests: ref(manifests),
      key: order === undefined ? null : ref(order.key),
      order: order === undefined ? null : { id: order.id, issuer: order.issuer, now: order.now.getTime() },
      values,
    };
    return new Promise<ProgramDecision>((resolve, reject) => {
      this.#queue.push({ job, facts, resolve, reject });
      if (this.#scheduled) return;
      this.#scheduled = true;
      setImmediate(() => void this.#flush()); // after this turn's I/O: the submissions that came with it go together
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#worker !== undefined) await this.#stop(this.#worker, "the authority is shutting down");
  }

  /** The id the thread knows `value` by; its value goes with the job when the thread does not keep it. */
  #ref(value: object, values: [number, unknown][]): number {
    let id = this.#ids.get(value);
    if (id !== undefined && this.#keptSet.has(id)) return id;
    if (id === undefined) this.#ids.set(value, (id = ++this.#nextId));
    values.push([id, value]);
    this.#kept.push(id);
    this.#keptSet.add(id);
    if (this.#kept.length > KEPT_VALUES) this.#keptSet.delete(this.#kept.shift()!);
    return id;
  }

  #start(): void {
    if (this.#worker !== undefined) return;
    const workerData: DecisionThreadData = { kept: KEPT_VALUES, answerEveryMs: ANSWER_EVERY_MS };
    const worker = new Worker(...threadModule(import.meta.url, "./decision-worker", { workerData }));
    worker.unref(); // never what keeps the process alive
    this.#worker = worker;
    this.#ready = new Promise<void>((resolve, reject) => {
      worker.on("message", (message: FromDecisionThread) => {
        if ("ready" in message) resolve();
        else if ("fatal" in message) reject(new Error(message.fatal));
        else this.#answered(message.id, message.from, message.answers);
      });
      worker.once("error", reject);
      worker.once("exit", () => reject(new Error("the decision thread exited")));
    });
    this.#ready.catch((err: Error) => void this.#stop(worker, `the decision thread failed: ${err.message}`));
    worker.once("error", (err) => void this.#stop(worker, `the decision thread failed: ${err.message}`));
    worker.once("exit", (code) => void this.#stop(worker, `the decision thread exited (code ${code})`));
  }

  async #flush(): Promise<void> {
    this.#scheduled = false;
    const worker = this.#worker;
    const ready = this.#ready;
    const queued = this.#queue.splice(0);
    if (worker === undefined || ready === undefined) {
      for (const w of queued) w.reject(stopped("the decision thread stopped"));
      return;
    }
    await ready.catch(() => undefined);
    for (let i = 0; i < queued.length; i += MAX_BATCH) {
      const batch = queued.slice(i, i + MAX_BATCH);
      if (this.#worker !== worker) {
        for (const w of batch) w.reject(stopped("the decision thread stopped"));
        continue;
      }
      const id = ++this.#nextId;
      const timer = setTimeout(
        () => void this.#stop(worker, `deciding took more than ${this.#timeoutMs} ms`),
        this.#timeoutMs,
      );
      this.#inFlight.set(id, { batch, timer });
      worker.ref(); // submissions being decided keep the process alive
      const message: DecisionBatch = { id, jobs: batch.map((w) => w.job) };
      worker.postMessage(message);
    }
  }

  /** Answers to the jobs of batch `id` from its job `from` on; the batch is done when its last job is answered. */
  #answered(id: number, from: number, answers: DecisionThreadAnswer[]): void {
    const inFlight = this.#inFlight.get(id);
    if (inFlight === undefined) return;
    if (from + answers.length >= inFlight.batch.length) {
      this.#inFlight.delete(id);
      clearTimeout(inFlight.timer);
      if (this.#inFlight.size === 0) this.#worker?.unref();
    }
    answers.forEach((answer, i) => {
      const waiting = inFlight.batch[from + i]!;
      if ("refused" in answer) {
        const { class: errorClass, boundary, message, details } = answer.refused;
        waiting.reject(new CountersignError(errorClass, boundary, message, details === undefined ? {} : { details }));
      } else if ("failed" in answer)
        waiting.reject(new CountersignError("internal_error", "policy", `deciding failed: ${answer.failed}`));
      else {
        const decision = decisions.parse(answer.decision);
        waiting.resolve(
          answer.receipt === undefined
            ? { facts: waiting.facts, decision }
            : { facts: waiting.facts, decision, receipt: answer.receipt },
        );
      }
    });
  }

  /**
   * Stop `worker` if it is still the thread: what it held or was about to get fails (retriable),
   * and the next submission starts a new thread that keeps nothing yet.
   */
  async #stop(worker: Worker, why: string): Promise<void> {
    if (this.#worker !== worker) return;
    this.#worker = undefined;
    this.#ready = undefined;
    this.#kept = [];
    this.#keptSet = new Set();
    for (const { batch, timer } of this.#inFlight.values()) {
      clearTimeout(timer);
      for (const w of batch) w.reject(stopped(why));
    }
    this.#inFlight.clear();
    for (const w of this.#queue.splice(0)) w.reject(stopped(why)); // their values were counted for this thread
    await worker.terminate();
  }
}

function stopped(why: string): CountersignError {
  return new CountersignError("internal_error", "authority", why, { retriable: true });
}
