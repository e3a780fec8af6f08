import type { ManifestSet } from "../manifest/manifest-set.js";
import { CountersignError } from "../model/errors.js";
import type { Json } from "../model/json.js";
import { checkCall } from "../receipt/check-call.js";
import type { VerifiedReceipt } from "../receipt/verified-receipt.js";
import type { ConnectorContext } from "./context.js";
import { executeAction } from "./execute-action.js";

/**
 * The trusted wrapper around every side effect: the call must fit the verified receipt (a grant
 * for the op, the pinned connector hash, every argument inside its constraint, count and
 * distinctness) before the connector runs. A refused call throws grant_violation or
 * receipt_invalid and reaches no connector.
 */
export async function callWithReceipt(
  verified: VerifiedReceipt,
  set: ManifestSet,
  op: string,
  args: Record<string, Json>,
  ctx: ConnectorContext,
): Promise<Json> {
  const action = set.actions.get(op);
  const connector = action === undefined ? undefined : set.connectors.get(action.connector);
  if (action === undefined || connector === undefined) {
    throw new CountersignError("capability_denied", "connector", `unknown action ${op}`, { details: { op } });
  }
  // Constraints see every declared input; one the program left out counts as null.
  const full: Record<string, Json> = {};
  for (const input of action.manifest.inputs) full[input.name] = args[input.name] ?? null;
  checkCall(verified, { op, connector: { name: connector.name, sha256: connector.manifest.sha256 }, args: full });
  return executeAction(set, op, args, ctx);
}
