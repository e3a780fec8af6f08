import type { LoadedAction, ManifestSet } from "../manifest/index.js";
import type { Json } from "../model/index.js";
import type { VerifiedReceipt } from "../receipt/index.js";
import { admitCall, marshalArgs } from "./admission.js";
import { checkedResult } from "./checked-result.js";
import type { ConnectorContext } from "./context.js";
import { executeAction } from "./execute-action.js";
import { resolveInputs } from "./resolve-inputs.js";

/**
 * The trusted wrapper around every side effect: the program's arguments become plain data
 * without running program code, and that data must fit the verified receipt (a grant for the op,
 * the pinned connector hash, every argument inside its constraint, counts and distinctness, the
 * limits across grants) before the connector runs with that same data. What the call does not
 * show but acts on (`[resolve]`: the draft send_draft sends) is read first and checked as
 * arguments, and the connector gets those checked values. A refused call throws grant_violation,
 * receipt_invalid, resource_limit_exceeded or capability_denied and reaches no connector; a
 * resolve read that fails throws its own error and nothing is done. The connector's answer is
 * checked against the action's declared result fields before it is returned (checkedResult).
 */
export async function callWithReceipt(
  verified: VerifiedReceipt,
  set: ManifestSet,
  op: string,
  args: unknown,
  ctx: ConnectorContext,
): Promise<Json> {
  const action = set.actions.get(op);
  // Most actions resolve nothing: their arguments are marshaled once, by admitCall.
  if (action?.manifest.resolve === undefined)
    return checked(action, await executeAction(set, admitCall(verified, set, op, args), ctx));
  const data = marshalArgs(op, args);
  return checked(
    action,
    await executeAction(
      set,
      admitCall(verified, set, op, data, await resolveInputs(verified, set, op, data, ctx)),
      ctx,
    ),
  );
}

// executeAction refuses an unknown op before anything runs, so `action` is there by now.
const checked = (action: LoadedAction | undefined, output: Json): Json =>
  action === undefined ? output : checkedResult(action, output);
