import type { ManifestSet } from "../manifest/index.js";
import { CountersignError } from "../model/index.js";
import type { Json } from "../model/index.js";
import { checkAgentManifestsApproved, type VerifiedReceipt } from "../receipt/index.js";
import { marshalArgs } from "./admission.js";
import { callWithReceipt } from "./call-with-receipt.js";
import { checkArgs } from "./check-args.js";
import type { ConnectorContext } from "./context.js";
import { fillTemplate } from "./interpolate.js";

/**
 * The trusted wrapper of an agent-submitted action (`agent.<name>`): refused unless the receipt
 * was issued for exactly the agent manifests `set` holds; then each [[execute]] step, its
 * template filled with the call's arguments and the earlier steps' outputs, is one trusted call
 * through callWithReceipt, under its own grant (connector pin, argument constraints, counts).
 * The first refused or failing step stops the action. Returns the last step's output.
 */
export async function callAgentAction(
  verified: VerifiedReceipt,
  set: ManifestSet,
  op: string,
  args: unknown,
  ctx: ConnectorContext,
): Promise<Json> {
  const action = set.agent?.actions.get(op);
  if (set.agent === undefined || action === undefined)
    throw new CountersignError("capability_denied", "connector", `unknown agent action ${op}`, { details: { op } });
  checkAgentManifestsApproved(verified, op, set.agent.sha256);
  const data = marshalArgs(op, args);
  checkArgs(action, data);
  const scope: Record<string, Json> = { args: data };
  let output: Json = null;
  for (const [i, step] of action.steps.entries()) {
    output = await callWithReceipt(
      verified,
      set,
      step.op,
      fillTemplate(action.templates.execute[i]!, scope) ?? {},
      ctx,
    );
    scope[action.manifest.execute[i]!.id] = output;
  }
  return output;
}
