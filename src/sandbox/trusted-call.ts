import type { QuickJSHandle, VmCallResult } from "quickjs-emscripten-core";
import { CountersignError } from "../model/index.js";
import type { Json } from "../model/index.js";
import { settleCall, vmError } from "./bridge.js";
import { NotPlainData, toJson } from "./marshal.js";
import { limitExceeded, stop, type CallRecord, type RunState } from "./run-state.js";

// Refusals: the call did not fit the receipt, and nothing reached a connector.
const REFUSALS = new Set(["grant_violation", "receipt_invalid"]);

/**
 * A trusted function's body, run when the program calls it (through the bridge's \`call\`): the
 * arguments become plain data (or the call is refused), the host's \`invoke\` runs (the receipt
 * check, then the connector), and the program holds a promise that the host settles by the call's
 * id when it ends. A refusal or failure rejects that promise with an error carrying the
 * countersign error class, which the program may catch.
 */
export function callTrusted(state: RunState, opHandle: QuickJSHandle, argsHandle: QuickJSHandle | undefined): QuickJSHandle | VmCallResult<QuickJSHandle> {
  const { bridge } = state;
  const { vm } = bridge;
  const op = vm.typeof(opHandle) === "string" ? vm.getString(opHandle) : String(vm.typeof(opHandle));
  const id = state.calls.length;
  const record: CallRecord = { op, status: "pending" };
  if (state.stopped === undefined && id >= state.limits.maxCalls) {
    stop(state, limitExceeded("calls", `the program made more than ${state.limits.maxCalls} trusted calls`, { max_calls: state.limits.maxCalls }));
  }
  state.calls.push(record);
  if (state.stopped !== undefined) return refuse(state, record, state.stopped);
  let args: Record<string, Json>;
  try {
    args = callArguments(toJson(bridge, argsHandle ?? vm.undefined, "call"));
  } catch (err) {
    if (!(err instanceof NotPlainData)) throw err;
    return refuse(state, record, new CountersignError("grant_violation", "sandbox", `${op}: the arguments are not plain data: ${err.message}`, { details: { path: err.path } }));
  }
  state.inflight.add(id);
  let pending: Promise<Json>;
  try {
    pending = state.invoke(op, args);
  } catch (err) {
    pending = Promise.reject(err);
  }
  pending
    .then(
      (value) => settle(state, id, record, { value }),
      (error: unknown) => settle(state, id, record, { error }),
    )
    .catch((err: unknown) => stop(state, new CountersignError("internal_error", "sandbox", `${op}: settling the call failed: ${(err as Error).message}`)));
  return vm.newNumber(id);
}

/** A trusted function takes one object of named arguments (or none). */
function callArguments(value: Json): Record<string, Json> {
  if (value === null) return {};
  if (typeof value !== "object" || Array.isArray(value)) throw new NotPlainData("", "must be an object of named arguments");
  return value;
}

function settle(state: RunState, id: number, record: CallRecord, outcome: { value: Json } | { error: unknown }): void {
  if (state.closed) return; // the run is over: its VM is gone
  state.inflight.delete(id);
  const { bridge, budget } = state;
  try {
    budget.inVm(() => {
      if ("value" in outcome) {
        record.status = "done";
        settleCall(bridge, id, { json: JSON.stringify(outcome.value ?? null) });
      } else {
        const failure = recordFailure(state, record, outcome.error);
        settleCall(bridge, id, { name: "CountersignError", message: failure.message, errorClass: failure.class });
      }
    });
  } catch (err) {
    // Only the engine fails here (the result does not fit in the program's memory).
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

/** Refuse a call before it goes out: the bridge's \`call\` turns the throw into a rejected promise. */
function refuse(state: RunState, record: CallRecord, error: CountersignError): VmCallResult<QuickJSHandle> {
  recordFailure(state, record, error);
  return { error: vmError(state.bridge, "CountersignError", error.message, error.class) };
}
