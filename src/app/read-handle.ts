import { CountersignError, type HandleView } from "../model/index.js";
import type { AppContext } from "./context.js";

/**
 * A held value, for the submitter it was held for. Another submitter's handle, an unknown one and
 * an expired one are alike "not found": a submitter learns nothing of the others' handles.
 */
export async function readHandle(ctx: AppContext, id: string, token: string): Promise<HandleView> {
  const held = await (await ctx.store()).readHandle(id, token);
  if (held === undefined)
    throw new CountersignError(
      "usage_error",
      "authority",
      `no handle ${id} for this agent: it was never given to this token, or it has expired`,
      { details: { reason: "not_found", handle: id } },
    );
  return {
    id: held.id,
    value: held.value,
    from: held.from,
    request_id: held.request_id,
    expires_at: new Date(held.expires_at).toISOString(),
  };
}
