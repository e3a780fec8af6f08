import type { ManifestSet } from "../manifest/index.js";
import type { Json } from "../model/index.js";
import type { VerifiedReceipt } from "../receipt/index.js";
import { admitCall } from "./admission.js";
import type { ConnectorContext } from "./context.js";
import { executeAction } from "./execute-action.js";

/**
 * The trusted wrapper around every side effect: the program's arguments become plain data
 * without running program code, and that data must fit the verified receipt (a grant for the op,
 * the pinned connector hash, every argument inside its constraint, counts and distinctness, the
 * limits across grants) before the connector runs with that same data. A refused call throws
 * grant_violation, receipt_invalid, resource_limit_exceeded or capability_denied and reaches no
 * connector.
 */
export async function callWithReceipt(verified: VerifiedReceipt, set: ManifestSet, op: string, args: unknown, ctx: ConnectorContext): Promise<Json> {
  return executeAction(set, admitCall(verified, set, op, args), ctx);
}
