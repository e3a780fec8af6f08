import { CountersignError, HandleId } from "../model/index.js";
import type { Json } from "../model/index.js";
import { clockNow, CLOCK_SLOTS, cpuSpent } from "./budget.js";
import type { Thrown } from "./describe.js";
import { FROM_HANDLE_OP, type SandboxApi } from "./host-modules.js";
import { checkLimits, DEFAULT_SANDBOX_LIMITS, type SandboxLimits } from "./limits.js";
import { fromSerialized, NotPlainData } from "./marshal.js";
import { programSource } from "./program-source.js";
import { limitExceeded, type CallRecord, type Invoke, type LogLine } from "./run-state.js";
import { giveBack, takeThread, type SandboxThread } from "./sandbox-thread.js";
import {
  apiData,
  fromErrorData,
  type FromWorker,
  type RealmSpec,
  type ValueDropped,
  type WorkerOutcome,
} from "./worker-protocol.js";

export interface RunRequest {
  source: Uint8Array; // the program's bytes, exactly as submitted
  sha256: string; // the hash the receipt binds: other bytes do not run
  entry: string; // the program's file name
  api: SandboxApi;
  invoke: Invoke;
  // The value of a quarantined result the program takes up with fromHandle; without it, every
  // fromHandle fails. A handle the caller does not give back throws: that is the program's error.
  readHandle?: (id: string) => Promise<Json>;
  limits?: Partial<SandboxLimits>;
  signal?: AbortSignal; // stops the run at once (Ctrl-C): it ends as limit "interrupted"
}

export interface RunResult {
  outcome: "returned" | "threw" | "limit";
  value: Json; // what main resolved to, when it is plain data within valueBytes; null otherwise
  valueDropped?: ValueDropped; // why a value main returned is null
  thrown?: Thrown; // outcome "threw": what the program let escape
  limit?: CountersignError; // outcome "limit": resource_limit_exceeded, details.limit names which
  calls: CallRecord[]; // the first KEPT_CALLS calls, in order
  callsOmitted: number; // calls made past those: counted, not kept
  refused: number;
  logs: LogLine[];
  cpuMs: number;
  preparedRealm: boolean; // the run took the realm prepareRun made ahead
}

/**
 * What a run keeps of its calls, whatever the program does: the first KEPT_CALLS records (op,
 * status, an error message of at most KEPT_MESSAGE characters), then only a count. The arguments
 * are never kept: they go to `invoke` and are let go when it settles.
 */
export const KEPT_CALLS = 1000;
export const KEPT_MESSAGE = 1024;

/**
 * How long past a CPU or wall limit the sandbox thread is terminated when it has not stopped the
 * run itself (its interrupt handler does, between bytecodes; a native loop never gets there).
 */
export const GRACE_MS = 250;
const LONGEST_TIMER = 2 ** 30;

// Refusals: the call did not fit the receipt, and nothing reached a connector.
const REFUSALS = new Set(["grant_violation", "receipt_invalid"]);

/**
 * Run an approved program's `main` in a fresh QuickJS instance (its own capped memory, a CPU and
 * a wall-clock budget, the locked-down environment, the generated modules as the only imports),
 * with every trusted call handed to `invoke`. The instance lives in a sandbox thread of its own
 * (sandbox-worker.ts, a heap of bounded size), so that this thread stays responsive whatever the
 * program does; it is terminated when the run passes its CPU or wall limit by GRACE_MS without
 * stopping itself, or when `signal` aborts. The calls go out from this thread, so a terminated run
 * leaves none half-made, and what it made is reported. Tasks the program leaves running after
 * `main` settles are waited for, within the same budgets. Refused bytes throw `hash_mismatch`;
 * anything the program does ends in the result, never in an exception. The realm is the one
 * prepareRun made ahead for this program when there is one (no code ran in it), else a new one.
 */
export async function runProgram(request: RunRequest): Promise<RunResult> {
  const limits = checkLimits({ ...DEFAULT_SANDBOX_LIMITS, ...request.limits });
  const program = programSource(request.source, request.sha256, request.entry);
  const spec: RealmSpec = { api: apiData(request.api), imports: [...program.imports], limits };
  const thread = takeThread(limits.memoryBytes);
  try {
    await thread.ready;
  } catch (err) {
    thread.terminate();
    throw new CountersignError(
      "internal_error",
      "sandbox",
      `the sandbox thread did not start: ${(err as Error).message}`,
    );
  }
  return new HostRun(thread, request, limits).start(spec, program.code);
}

/** A run seen from this thread: the calls it makes, its output, and the watch on its limits. */
class HostRun {
  readonly #calls: CallRecord[] = [];
  #callsOmitted = 0;
  #made = 0;
  #refused = 0;
  readonly #logs: LogLine[] = [];
  readonly #clock = new SharedArrayBuffer(CLOCK_SLOTS * Float64Array.BYTES_PER_ELEMENT);
  readonly #time = new Float64Array(this.#clock);
  #wallDeadline = 0;
  #timer: NodeJS.Timeout | undefined;
  #ended = false;
  #resolve!: (result: RunResult) => void;
  #reject!: (err: unknown) => void;

  readonly #thread: SandboxThread;
  readonly #request: RunRequest;
  readonly #limits: SandboxLimits;

  constructor(thread: SandboxThread, request: RunRequest, limits: SandboxLimits) {
    this.#thread = thread;
    this.#request = request;
    this.#limits = limits;
  }

  start(spec: RealmSpec, code: string): Promise<RunResult> {
    const result = new Promise<RunResult>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    const { signal } = this.#request;
    const interrupted = () => this.#kill(limitExceeded("interrupted", "the run was interrupted"));
    signal?.addEventListener("abort", interrupted, { once: true });
    void result.finally(() => signal?.removeEventListener("abort", interrupted)).catch(() => undefined);
    this.#thread.listen(
      (message) => this.#receive(message),
      (error) => this.#gone(error),
    );
    if (signal?.aborted === true) {
      interrupted();
      return result;
    }
    this.#wallDeadline = clockNow() + this.#limits.wallMs;
    this.#thread.post({
      type: "run",
      spec,
      code,
      entry: this.#request.entry,
      wallDeadline: this.#wallDeadline,
      clock: this.#clock,
    });
    this.#watch();
    return result;
  }

  #receive(message: FromWorker): void {
    if (this.#ended) return;
    switch (message.type) {
      case "call":
        return this.#call(message.id, message.op, message.args);
      case "log":
        this.#logs.push({ stream: message.stream, text: message.text });
        return;
      case "done":
        return this.#done(message.result);
      case "failed":
        this.#end(true);
        this.#reject(fromErrorData(message.error));
        return;
      case "ready":
        return;
    }
  }

  /**
   * A trusted call: its arguments become plain data (or it is refused), then `invoke`; the answer goes back to the
   * program.
   */
  #call(id: number, op: string, text: string): void {
    const record = this.#record(op);
    if (id !== this.#made - 1 || id >= this.#limits.maxCalls) {
      // The sandbox thread sends calls in order and none past the limit: anything else is ours to stop.
      return this.#kill(
        new CountersignError(
          "internal_error",
          "sandbox",
          `${op}: call ${id} arrived out of order or past the call limit`,
        ),
      );
    }
    let args: Record<string, Json>;
    try {
      args = callArguments(fromSerialized(text));
    } catch (err) {
      if (!(err instanceof NotPlainData)) throw err;
      return this.#answer(id, record, {
        error: new CountersignError(
          "grant_violation",
          "sandbox",
          `${op}: the arguments are not plain data: ${err.message}`,
          { details: { path: err.path } },
        ),
      });
    }
    let pending: Promise<Json>;
    try {
      pending = op === FROM_HANDLE_OP ? this.#heldValue(args) : this.#request.invoke(op, args);
    } catch (err) {
      pending = Promise.reject(err);
    }
    pending.then(
      (value) => this.#answer(id, record, { value }),
      (error: unknown) => this.#answer(id, record, { error }),
    );
  }

  /** What fromHandle resolves to: the caller's held value for a well-formed id. */
  #heldValue(args: Record<string, Json>): Promise<Json> {
    const { id } = args;
    if (!HandleId.safeParse(id).success)
      return Promise.reject(
        new CountersignError(
          "usage_error",
          "sandbox",
          "fromHandle: the id must be a handle id such as h_abc, from an earlier run's value",
          { details: { reason: "unknown_handle" } },
        ),
      );
    if (this.#request.readHandle === undefined)
      return Promise.reject(
        new CountersignError("usage_error", "sandbox", `fromHandle: no held values are available to this run`, {
          details: { reason: "unknown_handle", handle: id },
        }),
      );
    return this.#request.readHandle(id as string);
  }

  /** A new call's record, kept while fewer than KEPT_CALLS are (a record past them is counted and dropped). */
  #record(op: string): CallRecord {
    this.#made++;
    const record: CallRecord = { op, status: "pending" };
    if (this.#calls.length < KEPT_CALLS) this.#calls.push(record);
    else this.#callsOmitted++;
    return record;
  }

  #answer(id: number, record: CallRecord, outcome: { value: Json } | { error: unknown }): void {
    if (this.#ended) return; // the run's result is out, with this call pending: it is not changed afterwards
    if ("value" in outcome) {
      record.status = "done";
      let json: string;
      try {
        json = JSON.stringify(outcome.value ?? null);
      } catch (err) {
        return this.#answer(id, record, { error: err });
      }
      this.#thread.post({ type: "settle", id, json });
      return;
    }
    const failure = this.#fail(record, outcome.error);
    this.#thread.post({
      type: "settle",
      id,
      error: { name: "CountersignError", message: failure.message, class: failure.class },
    });
  }

  /**
   * Record a failed call and count a refusal. A host error that is not ours reaches the program without its details.
   */
  #fail(record: CallRecord, error: unknown): CountersignError {
    const known =
      error instanceof CountersignError
        ? error
        : new CountersignError("internal_error", "sandbox", `${record.op}: the host failed to make the call`);
    record.status = REFUSALS.has(known.class) ? "refused" : "failed";
    record.error = { class: known.class, message: clip(known.message) };
    if (record.status === "refused") this.#refused++;
    return known;
  }

  #done(outcome: WorkerOutcome): void {
    const limit = outcome.limit === undefined ? undefined : fromErrorData(outcome.limit);
    for (const op of outcome.unsent) {
      const record = this.#record(op);
      record.status = "failed";
      if (limit !== undefined) record.error = { class: limit.class, message: clip(limit.message) };
    }
    this.#end(false);
    this.#resolve({
      outcome: outcome.outcome,
      value: outcome.value,
      ...(outcome.valueDropped === undefined ? {} : { valueDropped: outcome.valueDropped }),
      ...(outcome.thrown === undefined ? {} : { thrown: outcome.thrown }),
      ...(limit === undefined ? {} : { limit }),
      ...this.#kept(outcome.cpuMs),
      preparedRealm: outcome.prepared,
    });
  }

  /** Terminate the sandbox thread, wherever its code is: the run ends on `limit`. */
  #kill(limit: CountersignError): void {
    if (this.#ended) return;
    this.#end(true);
    this.#resolve({
      outcome: "limit",
      value: null,
      limit,
      ...this.#kept(cpuSpent(this.#time, clockNow())),
      preparedRealm: false,
    });
  }

  /** The sandbox thread ended on its own: out of heap, or crashed. */
  #gone(error: Error | undefined): void {
    if (this.#ended) return;
    const code = (error as { code?: unknown } | undefined)?.code;
    this.#kill(
      code === "ERR_WORKER_OUT_OF_MEMORY"
        ? limitExceeded("memory", "the program ran out of memory (the sandbox thread's heap)")
        : limitExceeded("engine", `the sandbox thread stopped: ${error?.message ?? "it exited"}`),
    );
  }

  /** Watch the run's CPU and wall time from here; a run past either by GRACE_MS is killed. */
  #watch(): void {
    if (this.#ended) return;
    const now = clockNow();
    const cpuLeft = this.#limits.cpuMs - cpuSpent(this.#time, now);
    const wallLeft = this.#wallDeadline - now;
    // `terminated`: the sandbox thread was stopped from here (it did not stop the run itself).
    if (cpuLeft < -GRACE_MS)
      return this.#kill(
        limitExceeded("cpu", `the program ran longer than ${this.#limits.cpuMs} ms of CPU time`, {
          cpu_ms: this.#limits.cpuMs,
          terminated: true,
        }),
      );
    if (wallLeft < -GRACE_MS)
      return this.#kill(
        limitExceeded("wall", `the run took longer than ${this.#limits.wallMs} ms`, {
          wall_ms: this.#limits.wallMs,
          terminated: true,
        }),
      );
    // CPU time cannot pass faster than wall time: neither limit can be passed before this fires.
    this.#timer = setTimeout(
      () => this.#watch(),
      Math.min(LONGEST_TIMER, Math.max(1, Math.min(cpuLeft, wallLeft) + GRACE_MS + 1)),
    );
  }

  #end(terminate: boolean): void {
    this.#ended = true;
    clearTimeout(this.#timer);
    if (terminate) this.#thread.terminate();
    else giveBack(this.#thread);
  }

  #kept(cpuMs: number): Pick<RunResult, "calls" | "callsOmitted" | "refused" | "logs" | "cpuMs"> {
    return {
      calls: this.#calls,
      callsOmitted: this.#callsOmitted,
      refused: this.#refused,
      logs: this.#logs,
      cpuMs: Math.round(cpuMs * 1000) / 1000,
    };
  }
}

function clip(text: string): string {
  return text.length > KEPT_MESSAGE ? `${text.slice(0, KEPT_MESSAGE)}…` : text;
}

/** A trusted function takes one object of named arguments (or none). */
function callArguments(value: Json): Record<string, Json> {
  if (value === null) return {};
  if (typeof value !== "object" || Array.isArray(value))
    throw new NotPlainData("", "must be an object of named arguments");
  return value;
}
