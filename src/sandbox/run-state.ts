import type { QuickJSHandle } from "quickjs-emscripten-core";
import { CountersignError, type ErrorClass } from "../model/index.js";
import type { Json } from "../model/index.js";
import type { Bridge, QueuedCall } from "./bridge.js";
import type { Thrown } from "./describe.js";
import type { RunBudget } from "./budget.js";
import type { SandboxApi } from "./host-modules.js";
import type { SandboxLimits } from "./limits.js";
import type { FromWorker } from "./worker-protocol.js";

/** One trusted call the program made, in order. `pending` is a call the run ended without. */
export interface CallRecord {
  op: string;
  status: "pending" | "done" | "refused" | "failed";
  error?: { class: ErrorClass; message: string };
}

export interface LogLine {
  stream: "log" | "error";
  text: string;
}

/** The host side of a trusted call: the run command wires it to callWithReceipt. */
export type Invoke = (op: string, args: Record<string, Json>) => Promise<Json>;

/**
 * What the host functions of one run share with the loop that drives it, in the sandbox thread.
 * The calls and the log lines go to the run's thread as they happen (`send`): what is kept of
 * them is kept there, so that it survives the sandbox thread being terminated.
 */
export interface RunState {
  bridge: Bridge; // set once the host functions it reads are installed, before any program code

  budget: RunBudget;
  limits: SandboxLimits;
  api: SandboxApi;
  send: (message: FromWorker) => void;
  sent: number; // calls handed to the run's thread so far (the next call's id)
  unsent: string[]; // ops of the calls made after the run stopped: none went out
  logBytes: number;
  /** The limit that ended the run; once set, no more program code runs and no call goes out. */
  stopped: CountersignError | undefined;
  /**
   * Trusted calls (by id) whose promise the program holds, settled by the host when the call ends: sent, or waiting to
   * be.
   */
  inflight: Set<number>;
  /** Calls held back until the ones sent are answered (see sendCalls), and the argument text of those sent, by id. */
  waiting: QueuedCall[];
  sentChars: Map<number, number>;
  inflightChars: number;
  /** The VM function that runs `main` of the value program(...) returned (registered by the countersign module). */
  runner: QuickJSHandle | undefined;
  /** Tell the driving loop that something happened (a call settled, a limit passed). */
  wake(): void;
  closed: boolean;
}

export function limitExceeded(limit: string, message: string, details: Record<string, unknown> = {}): CountersignError {
  return new CountersignError("resource_limit_exceeded", "sandbox", message, { details: { limit, ...details } });
}

/** Stop the run for `error` (the first limit wins). */
export function stop(state: RunState, error: CountersignError): void {
  state.stopped ??= error;
  state.wake();
}

/**
 * The engine's own resource errors, which a program may let escape: out of memory, stack overflow (JSON.parse's is a
 * SyntaxError).
 */
export function engineLimit(thrown: Thrown): CountersignError | undefined {
  if (!["InternalError", "RangeError", "SyntaxError"].includes(thrown.name)) return undefined;
  if (thrown.message === "out of memory") return limitExceeded("memory", "the program ran out of memory");
  if (thrown.message === "stack overflow" || thrown.message === "Maximum call stack size exceeded")
    return limitExceeded("stack", "the program nested calls too deeply (stack overflow)");
  return undefined;
}
