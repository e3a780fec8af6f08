import type { StoredRequest } from "../model/index.js";
import type { AppContext } from "./context.js";
import { conflict, notFound } from "./not-found.js";

/** The submitter takes back its own pending request; a decided one stays as it is (conflict). */
export async function withdrawRequest(ctx: AppContext, id: string, token: string): Promise<StoredRequest> {
  const result = await (await ctx.store()).withdraw(id, token);
  if (result.ok) return result.request;
  if (result.reason === "not_found") throw notFound("request", id);
  throw conflict(id, `request ${id} is ${result.request.status}, not pending: it cannot be withdrawn`, {
    status: result.request.status,
  });
}
