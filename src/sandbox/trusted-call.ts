import { CountersignError } from "../model/index.js";
import type { Json } from "../model/index.js";
import { settleCall, takeCalls, type QueuedCall } from "./bridge.js";
import { fromSerialized, NotPlainData } from "./marshal.js";
import { limitExceeded, stop, type CallRecord, type RunState } from "./run-state.js";

// Refusals: the call did not fit the receipt, and nothing reached a connector.
const REFUSALS = new Set(["grant_violation", "receipt_invalid"]);

/**
 * Send out the trusted calls the program made since the last time (queued inside the VM, see
 * bridge.ts), in the order it made them: each one's arguments become plain data (or the call is
 * refused), the host's \`invoke\` runs (the receipt check, then the connector), and the host
 * settles the program's promise by the call's id when it ends. A refusal or failure rejects that
 * promise with an error carrying the countersign error class, which the program may catch. Once
 * the run is stopped no call goes out: each is recorded as failed, with the limit that stopped it.
 */
export function sendCalls(state: RunState): void {
  let calls: QueuedCall[];
  try {
    calls = state.budget.inVm(() => takeCalls(state.bridge));
  } catch (err) {
    if (state.stopped !== undefined) return; // a stopped run's VM interrupts even this: nothing more goes out
    throw err;
  }
  for (const call of calls) sendCall(state, call);
}

function sendCall(state: RunState, { id, op, args: text }: QueuedCall): void {
  const record: CallRecord = { op, status: "pending" };
  if (id !== state.calls.length) {
    stop(state, new CountersignError("internal_error", "sandbox", `${op}: call ${id} arrived as call ${state.calls.length}`));
  } else if (id >= state.limits.maxCalls) {
    callLimit(state);
  }
  state.calls.push(record);
  if (state.stopped !== undefined) return settle(state, id, record, { error: state.stopped });
  let args: Record<string, Json>;
  try {
    args = callArguments(fromSerialized(text));
  } catch (err) {
    if (!(err instanceof NotPlainData)) throw err;
    const refusal = new CountersignError("grant_violation", "sandbox", `${op}: the arguments are not plain data: ${err.message}`, { details: { path: err.path } });
    return settle(state, id, record, { error: refusal });
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
}

/** The program made more trusted calls than the run allows: the run stops. */
export function callLimit(state: RunState): void {
  stop(state, limitExceeded("calls", `the program made more than ${state.limits.maxCalls} trusted calls`, { max_calls: state.limits.maxCalls }));
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
