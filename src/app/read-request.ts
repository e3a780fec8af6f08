import type { StoredRequest } from "../model/index.js";
import type { AppContext } from "./context.js";
import { notFound } from "./not-found.js";

/**
 * One request. `token` (a submitter's token name) limits it to that submitter's own requests:
 * another's is "not found", so a submitter learns nothing of the others.
 */
export async function readRequest(ctx: AppContext, id: string, token?: string): Promise<StoredRequest> {
  const request = await (await ctx.store()).get(id);
  if (request === null || (token !== undefined && request.token !== token)) throw notFound("request", id);
  return request;
}
