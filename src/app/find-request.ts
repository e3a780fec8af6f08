import { CountersignError } from "../model/errors.js";
import type { ApprovalRequest } from "../model/request.js";
import type { AppContext } from "./context.js";

/** The stored request `id`, or a usage_error naming it. */
export async function findRequest(ctx: AppContext, id: string): Promise<ApprovalRequest> {
  const request = await ctx.requests.get(id);
  if (request === undefined) throw new CountersignError("usage_error", "authority", `no request ${id}`, { details: { request_id: id } });
  return request;
}
