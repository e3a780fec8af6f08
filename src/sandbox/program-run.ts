import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from "quickjs-emscripten-core";
import { CountersignError } from "../model/index.js";
import { RunBudget, clockNow } from "./budget.js";
import { describeThrown } from "./describe.js";
import type { SandboxLimits } from "./limits.js";
import { NotPlainData, toJson } from "./marshal.js";
import { bindRealm, disposeRealm, type Realm } from "./realm.js";
import { engineLimit, limitExceeded, stop, type RunState } from "./run-state.js";
import { sendCalls, settleFromHost } from "./trusted-call.js";
import { errorData, type FromWorker, type WorkerOutcome } from "./worker-protocol.js";

/** What a run in the sandbox thread is given: the transpiled program, and how to reach the run's thread. */
export interface ProgramRunInput {
  code: string;
  entry: string;
  limits: SandboxLimits;
  wallDeadline: number; // clockNow() at which the wall time is up, the run's thread's deadline
  clock: Float64Array; // the budget's shared clock, which the run's thread reads
  send: (message: FromWorker) => void;
}

type Settled = { value: QuickJSHandle } | { error: QuickJSHandle } | { stopped: true };

/**
 * A program's run inside the sandbox thread: `main` in the realm built for it, within the CPU and
 * wall budgets its interrupt handler reads, with every trusted call sent to the run's thread and
 * settled when its answer comes back (`settle`). Tasks the program leaves running after `main`
 * settles are waited for, within the same budgets. Anything the program does ends in the
 * outcome, never in an exception.
 */
export class ProgramRun {
  readonly #runtime: QuickJSRuntime;
  readonly #vm: QuickJSContext;
  readonly #state: RunState;
  readonly #limits: SandboxLimits;
  #waiter: (() => void) | undefined;
  #woken = false;
  #timer: NodeJS.Timeout | undefined;
  #broken = false; // the engine trapped: its memory is not to be touched again

  readonly #realm: Realm;
  readonly #input: ProgramRunInput;

  constructor(realm: Realm, input: ProgramRunInput) {
    this.#realm = realm;
    this.#input = input;
    this.#runtime = realm.runtime;
    this.#vm = realm.vm;
    this.#limits = input.limits;
    const budget = new RunBudget(input.limits.cpuMs, input.wallDeadline, input.clock);
    this.#state = bindRealm(realm, { budget, limits: input.limits, send: input.send, wake: () => this.#wake() }, () =>
      this.#interrupt(),
    );
  }

  /** The run's thread answered a trusted call. */
  answer(id: number, outcome: Parameters<typeof settleFromHost>[2]): void {
    settleFromHost(this.#state, id, outcome);
  }

  async execute(): Promise<Omit<WorkerOutcome, "prepared">> {
    try {
      return await this.#run();
    } finally {
      this.#close();
    }
  }

  async #run(): Promise<Omit<WorkerOutcome, "prepared">> {
    const { code, entry, wallDeadline } = this.#input;
    try {
      const wall = () =>
        stop(
          this.#state,
          limitExceeded("wall", `the run took longer than ${this.#limits.wallMs} ms`, { wall_ms: this.#limits.wallMs }),
        );
      this.#timer = setTimeout(wall, Math.max(0, wallDeadline - clockNow()));
      const evaluated = this.#enter(() => this.#vm.evalCode(code, entry, { type: "module" }));
      const module =
        "error" in evaluated && evaluated.error !== undefined
          ? { error: evaluated.error }
          : await this.#settle(evaluated.value);
      if (!("value" in module)) return this.#finish(module);
      const main = await this.#startMain(module.value);
      await this.#drain();
      return this.#finish(main);
    } catch (err) {
      if (err instanceof CountersignError) throw err;
      // A trap or a host-stack overflow inside the engine: the instance is lost, the host is not.
      this.#broken = true;
      stop(this.#state, limitExceeded("engine", `the program exhausted the engine: ${(err as Error).message}`));
      return this.#finish({ stopped: true });
    }
  }

  #close(): void {
    this.#state.closed = true;
    clearTimeout(this.#timer);
    if (!this.#broken) disposeRealm(this.#realm); // an engine that trapped keeps its memory: it is not reused
  }

  /** Call main through the runner the countersign module registered, with the module's default export. */
  async #startMain(namespace: QuickJSHandle): Promise<Settled> {
    const vm = this.#vm;
    const state = this.#state;
    const exported = vm.getProp(namespace, "default");
    namespace.dispose();
    try {
      if (state.runner === undefined)
        return {
          error: this.#enter(() =>
            vm.newError({ name: "TypeError", message: "the program does not import program from countersign" }),
          ),
        };
      const started = this.#enter(() => vm.callFunction(state.runner!, vm.undefined, exported));
      return started.error !== undefined ? { error: started.error } : await this.#settle(started.value);
    } finally {
      exported.dispose();
    }
  }

  /** Run jobs and wait for trusted calls until `handle` (a promise or a value) settles. */
  async #settle(handle: QuickJSHandle): Promise<Settled> {
    const vm = this.#vm;
    const state = this.#state;
    try {
      for (;;) {
        this.#runJobs();
        if (state.stopped !== undefined) return { stopped: true };
        const promise = vm.getPromiseState(handle);
        if (promise.type === "fulfilled") return { value: promise.notAPromise === true ? handle.dup() : promise.value };
        if (promise.type === "rejected") return { error: promise.error };
        if (state.inflight.size === 0 && !this.#runtime.hasPendingJob()) {
          stop(state, limitExceeded("stalled", "the program awaits a promise that nothing can settle"));
          return { stopped: true };
        }
        await this.#nextWake();
      }
    } finally {
      handle.dispose();
    }
  }

  /** After main: the tasks it left running go on until none is left (the analysis assumes they finish). */
  async #drain(): Promise<void> {
    for (;;) {
      this.#runJobs();
      if (this.#state.stopped !== undefined) return;
      if (this.#state.inflight.size === 0 && !this.#runtime.hasPendingJob()) return;
      await this.#nextWake();
    }
  }

  /** Run the program's jobs, sending out the trusted calls they make, until none is left or the run stops. */
  #runJobs(): void {
    do {
      while (this.#state.stopped === undefined && this.#runtime.hasPendingJob()) {
        const result = this.#enter(() => this.#runtime.executePendingJobs());
        if (result.error !== undefined) {
          // Only an uncatchable error escapes a job: an interrupt (already a limit) or the engine's own failure.
          const thrown = describeThrown(this.#state.bridge, result.error);
          result.error.dispose();
          stop(
            this.#state,
            engineLimit(thrown) ??
              new CountersignError("internal_error", "sandbox", `a job failed: ${thrown.name}: ${thrown.message}`),
          );
        }
      }
      sendCalls(this.#state); // a call refused here rejects at once: its handlers are jobs to run
    } while (this.#state.stopped === undefined && this.#runtime.hasPendingJob());
  }

  #finish(settled: Settled): Omit<WorkerOutcome, "prepared"> {
    const state = this.#state;
    const base = {
      unsent: [...state.waiting.map((call) => call.op), ...state.unsent],
      cpuMs: Math.round(state.budget.cpuMsSpent() * 1000) / 1000,
    };
    if ("error" in settled) {
      const thrown = describeThrown(state.bridge, settled.error);
      settled.error.dispose();
      const limit = state.stopped ?? engineLimit(thrown);
      return limit !== undefined
        ? { outcome: "limit", value: null, limit: errorData(limit), ...base }
        : { outcome: "threw", value: null, thrown, ...base };
    }
    if ("stopped" in settled || state.stopped !== undefined) {
      if ("value" in settled) settled.value.dispose();
      return { outcome: "limit", value: null, limit: errorData(state.stopped!), ...base };
    }
    try {
      const value = toJson(state.bridge, settled.value);
      const bytes = Buffer.byteLength(JSON.stringify(value));
      if (bytes > this.#limits.valueBytes)
        return {
          outcome: "returned",
          value: null,
          valueDropped: { reason: "too_large", bytes, limit: this.#limits.valueBytes },
          ...base,
        };
      return { outcome: "returned", value, ...base };
    } catch (err) {
      if (!(err instanceof NotPlainData)) throw err;
      return {
        outcome: "returned",
        value: null,
        valueDropped: {
          reason: "not_plain_data",
          path: err.path === "" ? "$" : `$${err.path.startsWith("[") ? "" : "."}${err.path}`,
          why: err.reason,
        },
        ...base,
      };
    } finally {
      settled.value.dispose();
    }
  }

  #enter<T>(fn: () => T): T {
    return this.#state.budget.inVm(fn);
  }

  #interrupt(): boolean {
    const state = this.#state;
    if (state.stopped !== undefined) return true;
    const over = state.budget.exhausted();
    if (over === "cpu")
      stop(
        state,
        limitExceeded("cpu", `the program ran longer than ${this.#limits.cpuMs} ms of CPU time`, {
          cpu_ms: this.#limits.cpuMs,
        }),
      );
    if (over === "wall")
      stop(
        state,
        limitExceeded("wall", `the run took longer than ${this.#limits.wallMs} ms`, { wall_ms: this.#limits.wallMs }),
      );
    return over !== undefined;
  }

  #wake(): void {
    if (this.#waiter !== undefined) this.#waiter();
    else this.#woken = true;
  }

  #nextWake(): Promise<void> {
    if (this.#woken) {
      this.#woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.#waiter = () => {
        this.#waiter = undefined;
        resolve();
      };
    });
  }
}
