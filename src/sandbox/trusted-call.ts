import type { QuickJSDeferredPromise, QuickJSHandle } from "quickjs-emscripten-core";
import { CountersignError } from "../model/errors.js";
import type { Json } from "../model/json.js";
import { toVm, vmError } from "./bridge.js";
import { NotPlainData, toJson } from "./marshal.js";
import { limitExceeded, stop, type CallRecord, type RunState } from "./run-state.js";

// Refusals: the call did not fit the receipt, and nothing reached a connector.
const REFUSALS = new Set(["grant_violation", "receipt_invalid"]);

/**
 * A trusted function's body, run when the program calls it: the arguments become plain data (or
 * the call is refused), the host's `invoke` runs (the receipt check, then the connector), and the
 * program gets a promise that settles when it ends. A refusal or failure rejects that promise
 * with an error carrying the countersign error class, which the program may catch.
 */
export function callTrusted(state: RunState, opHandle: QuickJSHandle, argsHandle: QuickJSHandle | undefined): QuickJSHandle {
  const { bridge } = state;
  const { vm } = bridge;
  const op = vm.typeof(opHandle) === "string" ? vm.getString(opHandle) : String(vm.typeof(opHandle));
  const record: CallRecord = { op, status: "pending" };
  if (state.stopped === undefined && state.calls.length >= state.limits.maxCalls) {
    stop(state, limitExceeded("calls", `the program made more than ${state.limits.maxCalls} trusted calls`, { max_calls: state.limits.maxCalls }));
  }
  state.calls.push(record);
  if (state.stopped !== undefined) return rejected(state, record, state.stopped);
  let args: Record<string, Json>;
  try {
    args = callArguments(toJson(bridge, argsHandle ?? vm.undefined));
  } catch (err) {
    if (!(err instanceof NotPlainData)) throw err;
    return rejected(state, record, new CountersignError("grant_violation", "sandbox", `${op}: the arguments are not plain data: ${err.message}`, { details: { path: err.path } }));
  }
  const deferred = vm.newPromise();
  state.inflight.add(deferred);
  let pending: Promise<Json>;
  try {
    pending = state.invoke(op, args);
  } catch (err) {
    pending = Promise.reject(err);
  }
  pending
    .then(
      (value) => settle(state, deferred, record, { value }),
      (error: unknown) => settle(state, deferred, record, { error }),
    )
    .catch((err: unknown) => stop(state, new CountersignError("internal_error", "sandbox", `${op}: settling the call failed: ${(err as Error).message}`)));
  return deferred.handle;
}

/** A trusted function takes one object of named arguments (or none). */
function callArguments(value: Json): Record<string, Json> {
  if (value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) throw new NotPlainData("", "must be an object of named arguments");
  return value;
}

function settle(state: RunState, deferred: QuickJSDeferredPromise, record: CallRecord, outcome: { value: Json } | { error: unknown }): void {
  if (state.closed) return; // the run is over: its VM and this promise are gone
  state.inflight.delete(deferred);
  const { bridge, budget } = state;
  try {
    budget.inVm(() => {
      if ("value" in outcome) {
        record.status = "done";
        const value = toVm(bridge, outcome.value);
        deferred.resolve(value);
        value.dispose();
      } else {
        const failure = recordFailure(state, record, outcome.error);
        const error = vmError(bridge, "CountersignError", failure.message, failure.class);
        deferred.reject(error);
        error.dispose();
      }
    });
  } catch (err) {
    // Only the engine fails here (the result does not fit in the program's memory).
    deferred.dispose();
    stop(state, limitExceeded("memory", `${record.op}: the result does not fit in the program's memory`, { cause: (err as Error).message }));
  }
  state.wake();
}

/** Record a failed call and count a refusal. A host error that is not ours reaches the program without its details. */
function recordFailure(state: RunState, record: CallRecord, error: unknown): CountersignError {
  const known = error instanceof CountersignError ? error : new CountersignError("internal_error", "sandbox", `${record.op}: the host failed to make the call`);
  record.status = REFUSALS.has(known.class) ? "refused" : "failed";
  record.error = { class: known.class, message: known.message };
  if (record.status === "refused") state.refused++;
  return known;
}

function rejected(state: RunState, record: CallRecord, error: CountersignError): QuickJSHandle {
  const { bridge } = state;
  recordFailure(state, record, error);
  const deferred = bridge.vm.newPromise();
  const reason = vmError(bridge, "CountersignError", error.message, error.class);
  deferred.reject(reason);
  reason.dispose();
  return deferred.handle;
}
