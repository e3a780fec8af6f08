import { CountersignError, MARSHAL_LIMITS, type ErrorClass } from "../model/index.js";
import { settleCall, takeCalls, type QueuedCall } from "./bridge.js";
import { limitExceeded, stop, type RunState } from "./run-state.js";

/**
 * Send out the trusted calls the program made since the last time (queued inside the VM, see
 * bridge.ts), in the order it made them, to the run's thread: there each one's arguments become
 * plain data (or the call is refused), the host's `invoke` runs (the receipt check, then the
 * connector), and the answer comes back by the call's id (`settleFromHost`). Once the run is
 * stopped no call goes out: each is listed as unsent, and failed with the limit that stopped it.
 *
 * The run's thread holds the arguments of the calls it is making: past MAX_INFLIGHT_CHARS of them
 * a call waits here, in this thread's bounded heap, until earlier ones are answered, so that a
 * program firing calls without awaiting them cannot grow the host's memory without end.
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

/** The argument text the run's thread holds for calls in flight before the next one waits (one call always goes). */
export const MAX_INFLIGHT_CHARS = 4 * MARSHAL_LIMITS.maxChars;

function sendCall(state: RunState, call: QueuedCall): void {
  const { id, op } = call;
  if (id !== state.sent + state.unsent.length) {
    stop(
      state,
      new CountersignError(
        "internal_error",
        "sandbox",
        `${op}: call ${id} arrived as call ${state.sent + state.unsent.length}`,
      ),
    );
  } else if (id >= state.limits.maxCalls) {
    callLimit(state);
  }
  if (state.stopped !== undefined) {
    state.unsent.push(op);
    settle(state, id, {
      error: { name: "CountersignError", message: state.stopped.message, class: state.stopped.class },
    });
    return;
  }
  state.sent++;
  state.inflight.add(id);
  state.waiting.push(call);
  sendWaiting(state);
}

/** Send the waiting calls, in order, while the run's thread holds less than MAX_INFLIGHT_CHARS of arguments. */
function sendWaiting(state: RunState): void {
  while (state.waiting.length > 0 && state.stopped === undefined) {
    const call = state.waiting[0]!;
    if (state.sentChars.size > 0 && state.inflightChars + call.args.length > MAX_INFLIGHT_CHARS) return;
    state.waiting.shift();
    state.sentChars.set(call.id, call.args.length);
    state.inflightChars += call.args.length;
    state.send({ type: "call", id: call.id, op: call.op, args: call.args });
  }
}

/** The program made more trusted calls than the run allows: the run stops. */
export function callLimit(state: RunState): void {
  stop(
    state,
    limitExceeded("calls", `the program made more than ${state.limits.maxCalls} trusted calls`, {
      max_calls: state.limits.maxCalls,
    }),
  );
}

/** The run's thread answered trusted call `id`: the program's promise settles with it. */
export function settleFromHost(
  state: RunState,
  id: number,
  outcome: { json: string } | { error: { name: string; message: string; class: ErrorClass } },
): void {
  const chars = state.sentChars.get(id);
  if (chars === undefined) return; // not a call in flight: nothing to settle
  state.sentChars.delete(id);
  state.inflightChars -= chars;
  settle(state, id, outcome);
  sendWaiting(state);
}

function settle(
  state: RunState,
  id: number,
  outcome: { json: string } | { error: { name: string; message: string; class: ErrorClass } },
): void {
  if (state.closed) return; // the run is over: its VM is gone
  state.inflight.delete(id);
  const { bridge, budget } = state;
  try {
    budget.inVm(() =>
      settleCall(
        bridge,
        id,
        "json" in outcome
          ? outcome
          : { name: outcome.error.name, message: outcome.error.message, errorClass: outcome.error.class },
      ),
    );
  } catch (err) {
    // Only the engine fails here (the result does not fit in the program's memory).
    stop(
      state,
      limitExceeded("memory", `call ${id}: the result does not fit in the program's memory`, {
        cause: (err as Error).message,
      }),
    );
  }
  state.wake();
}
