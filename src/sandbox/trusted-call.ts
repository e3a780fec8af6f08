import { CountersignError, type ErrorClass } from "../model/index.js";
import { settleCall, takeCalls, type QueuedCall } from "./bridge.js";
import { limitExceeded, stop, type RunState } from "./run-state.js";

/**
 * Send out the trusted calls the program made since the last time (queued inside the VM, see
 * bridge.ts), in the order it made them, to the run's thread: there each one's arguments become
 * plain data (or the call is refused), the host's `invoke` runs (the receipt check, then the
 * connector), and the answer comes back by the call's id (`settleFromHost`). Once the run is
 * stopped no call goes out: each is listed as unsent, and failed with the limit that stopped it.
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

function sendCall(state: RunState, call: QueuedCall): void {
  const { id, op } = call;
  if (id !== state.sent + state.unsent.length) {
    stop(state, new CountersignError("internal_error", "sandbox", `${op}: call ${id} arrived as call ${state.sent + state.unsent.length}`));
  } else if (id >= state.limits.maxCalls) {
    callLimit(state);
  }
  if (state.stopped !== undefined) {
    state.unsent.push(op);
    settle(state, id, { error: { name: "CountersignError", message: state.stopped.message, class: state.stopped.class } });
    return;
  }
  state.sent++;
  state.inflight.add(id);
  state.send({ type: "call", id, op, args: call.args });
}

/** The program made more trusted calls than the run allows: the run stops. */
export function callLimit(state: RunState): void {
  stop(state, limitExceeded("calls", `the program made more than ${state.limits.maxCalls} trusted calls`, { max_calls: state.limits.maxCalls }));
}

/** The run's thread answered trusted call `id`: the program's promise settles with it. */
export function settleFromHost(state: RunState, id: number, outcome: { json: string } | { error: { name: string; message: string; class: ErrorClass } }): void {
  if (!state.inflight.has(id)) return; // not a call in flight: nothing to settle
  settle(state, id, outcome);
}

function settle(state: RunState, id: number, outcome: { json: string } | { error: { name: string; message: string; class: ErrorClass } }): void {
  if (state.closed) return; // the run is over: its VM is gone
  state.inflight.delete(id);
  const { bridge, budget } = state;
  try {
    budget.inVm(() => settleCall(bridge, id, "json" in outcome ? outcome : { name: outcome.error.name, message: outcome.error.message, errorClass: outcome.error.class }));
  } catch (err) {
    // Only the engine fails here (the result does not fit in the program's memory).
    stop(state, limitExceeded("memory", `call ${id}: the result does not fit in the program's memory`, { cause: (err as Error).message }));
  }
  state.wake();
}
