import type { ManifestSet } from "../manifest/index.js";
import { CountersignError } from "../model/index.js";
import type { Json } from "../model/index.js";
import { isAdmitted, type Admission } from "./admission.js";
import { resolveCapabilities, type Capabilities } from "./capabilities.js";
import { checkArgs } from "./check-args.js";
import type { ConnectorContext } from "./context.js";
import { fillTemplate } from "./interpolate.js";
import { createPluginPool } from "./plugin-pool.js";

/**
 * Run an admitted action's `[[execute]]` steps in order and return the last step's output. The
 * first failing step stops the action with its error (capability_denied, network_error,
 * external_api_error, connector_error, resource_limit_exceeded, hash_mismatch, config_error).
 *
 * This is the side-effect seam. It runs nothing without an Admission from admitCall (a checked
 * receipt) or admitPreview (a read-only action without approval), so it needs no export to keep
 * callers out: a caller without a checked grant has no way to ask it for an effect.
 */
export async function executeAction(set: ManifestSet, admission: Admission, ctx: ConnectorContext): Promise<Json> {
  if (!isAdmitted(admission)) {
    throw new CountersignError(
      "grant_violation",
      "connector",
      `${String(admission?.op)}: not admitted by a receipt check`,
      { details: { reason: "no_grant" } },
    );
  }
  const { op, args } = admission;
  const action = set.actions.get(op);
  if (action === undefined)
    throw new CountersignError("connector_error", "connector", `unknown action ${op}`, { details: { op } });
  checkArgs(action, args);
  const pool = ctx.plugins ?? createPluginPool();
  try {
    const scope: Record<string, Json> = { args: args as Record<string, Json> };
    const capabilities = new Map<string, Capabilities>();
    let output: Json = null;
    for (const [i, step] of action.manifest.execute.entries()) {
      const connector = set.connectors.get(step.connector);
      if (connector === undefined) {
        throw new CountersignError(
          "connector_error",
          "connector",
          `${op}: step ${step.id} names unknown connector ${step.connector}`,
          { details: { op } },
        );
      }
      let caps = capabilities.get(connector.name);
      if (caps === undefined)
        capabilities.set(connector.name, (caps = resolveCapabilities(connector, ctx.connections, ctx)));
      output = await pool.call(
        connector,
        step.op,
        fillTemplate(action.templates.execute[i]!, scope) ?? {},
        caps,
        ctx.limits,
        admission.scope,
      );
      scope[step.id] = output;
    }
    return output;
  } finally {
    if (ctx.plugins === undefined) await pool.close();
  }
}
